/** SQL for the SCIM request log: append one row, keep the newest few, read them back. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface ScimRequestRow {
  id: string
  created_at: Timestamp
  credential_id: string | null
  method: string
  path: string
  status: number
  scim_type: string | null
  duration_ms: number
  subject: string | null
}

export async function insertScimRequest(ex: Executor, row: ScimRequestRow): Promise<void> {
  await ex.insertInto('scim_requests').values(row).execute()
}

/**
 * Deletes every row but the newest `keep` of one kind: requests with a credential, or those
 * without. The inner LIMIT bounds one prune's work; since every insert prunes its kind, the table
 * never holds more than the two `keep`s plus the requests in flight.
 */
export async function pruneScimRequests(
  ex: Executor,
  keep: number,
  credentialed: boolean,
): Promise<void> {
  await ex
    .deleteFrom('scim_requests')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('scim_requests')
        .select('id')
        .where('credential_id', credentialed ? 'is not' : 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1000)
        .offset(keep),
    )
    .execute()
}

export interface ScimRequestView extends ScimRequestRow {
  credential_name: string | null
}

/**
 * The newest requests first, each with the name of the credential that made it (revoked ones too).
 */
export async function listScimRequests(ex: Executor, limit: number): Promise<ScimRequestView[]> {
  return ex
    .selectFrom('scim_requests')
    .leftJoin('scim_credentials', 'scim_credentials.id', 'scim_requests.credential_id')
    .select([
      'scim_requests.id',
      'scim_requests.created_at',
      'scim_requests.credential_id',
      'scim_requests.method',
      'scim_requests.path',
      'scim_requests.status',
      'scim_requests.scim_type',
      'scim_requests.duration_ms',
      'scim_requests.subject',
      'scim_credentials.name as credential_name',
    ])
    .orderBy('scim_requests.created_at', 'desc')
    .orderBy('scim_requests.id', 'desc')
    .limit(limit)
    .execute()
}
