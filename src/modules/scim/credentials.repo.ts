/** SQL for SCIM credentials. The secret is never stored, only its SHA-256. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface ScimCredentialRow {
  id: string
  name: string
  prefix: string
  created_at: Timestamp
  last_used_at: Timestamp | null
}

const COLUMNS = ['id', 'name', 'prefix', 'created_at', 'last_used_at'] as const

export async function insertScimCredential(
  ex: Executor,
  row: ScimCredentialRow & { token_hash: string; created_by: string | null },
): Promise<ScimCredentialRow> {
  return ex.insertInto('scim_credentials').values(row).returning(COLUMNS).executeTakeFirstOrThrow()
}

export async function listLiveScimCredentials(ex: Executor): Promise<ScimCredentialRow[]> {
  return ex
    .selectFrom('scim_credentials')
    .select(COLUMNS)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute()
}

/** The per-request lookup: one read through the unique hash index. */
export async function findLiveScimCredential(
  ex: Executor,
  tokenHash: string,
): Promise<ScimCredentialRow | null> {
  const row = await ex
    .selectFrom('scim_credentials')
    .select(COLUMNS)
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return row ?? null
}

/** Revokes a live credential; false when there is none with that id. */
export async function revokeScimCredential(
  ex: Executor,
  id: string,
  now: Timestamp,
): Promise<ScimCredentialRow | null> {
  const row = await ex
    .updateTable('scim_credentials')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(COLUMNS)
    .executeTakeFirst()
  return row ?? null
}

/**
 * Moves last_used_at forward only when it is older than `staleBefore`: at most one write a minute.
 */
export async function touchScimCredential(
  ex: Executor,
  id: string,
  now: Timestamp,
  staleBefore: Timestamp,
): Promise<void> {
  await ex
    .updateTable('scim_credentials')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute()
}
