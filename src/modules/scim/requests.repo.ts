/** SQL for the SCIM request log: write one request over the oldest of its ring, read them back. */
import { sql } from 'kysely'
import { isPostgres } from '../../db/engine.js'
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

/** The log's two rings (migration 0119_scim_request_ring): their rows are fixed. */
export type ScimRequestRing = 'credentialed' | 'unauthenticated'

/** PostgreSQL: the sequence that numbers each ring's writes. */
const RING_SEQUENCES: Record<ScimRequestRing, string> = {
  credentialed: 'scim_requests_credentialed_seq',
  unauthenticated: 'scim_requests_unauthenticated_seq',
}

/**
 * Writes one request over its ring's oldest row (a row not yet written first), in one statement;
 * the ring holds `size` rows. PostgreSQL numbers the ring's writes with a sequence, so concurrent
 * writers take distinct rows: write n goes to position n mod size (one nextval per statement: a
 * scalar subquery, not a condition evaluated per row). SQLite writes one statement at a time, so
 * its oldest row is the one to take. Neither the ring nor the position changes, and no other
 * column is indexed: on PostgreSQL each write is a heap-only update.
 */
export async function writeScimRequest(
  ex: Executor,
  ring: ScimRequestRing,
  size: number,
  row: ScimRequestRow,
): Promise<void> {
  const position = isPostgres(ex)
    ? sql<number>`(select nextval(${RING_SEQUENCES[ring]}::regclass) % ${size})`
    : sql<number>`(select position from scim_requests where ring = ${ring}
        order by created_at is not null, created_at, position limit 1)`
  await ex
    .updateTable('scim_requests')
    .set(row)
    .where('ring', '=', ring)
    .where('position', '=', position)
    .execute()
}

export interface ScimRequestView extends ScimRequestRow {
  credential_name: string | null
}

/**
 * The newest requests first, each with the name of the credential that made it (revoked ones too).
 */
export async function listScimRequests(ex: Executor, limit: number): Promise<ScimRequestView[]> {
  const rows = await ex
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
    .where('scim_requests.created_at', 'is not', null)
    .orderBy('scim_requests.created_at', 'desc')
    .orderBy('scim_requests.id', 'desc')
    .limit(limit)
    .execute()
  // A written row has every column its request gave (writeScimRequest sets them together).
  return rows as ScimRequestView[]
}
