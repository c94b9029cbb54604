/** SQL for personal API tokens. The secret itself is never stored, only its SHA-256. */
import type { Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { activeApiToken } from '../../identity/api-tokens.repo.js'

export interface ApiTokenRow {
  id: string
  name: string
  prefix: string
  created_at: Timestamp
  last_used_at: Timestamp | null
  last_used_ip: string | null
  expires_at: Timestamp | null
  /** JSON array; null = full access (legacy). */
  permissions: string | null
  /** JSON array of organization ids; null = all of the owner's organizations. */
  organization_ids: string | null
}

const TOKEN_COLUMNS = [
  'id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'last_used_ip',
  'expires_at',
  'permissions',
  'organization_ids',
] as const

export async function insertApiToken(
  ex: Executor,
  token: ApiTokenRow & { user_id: string; token_hash: string },
): Promise<ApiTokenRow> {
  return ex
    .insertInto('api_tokens')
    .values(token)
    .returning(TOKEN_COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function countActiveApiTokens(
  ex: Executor,
  userId: string,
  now: Timestamp,
): Promise<number> {
  const row = await ex
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where(activeApiToken(now))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function listActiveApiTokens(
  ex: Executor,
  userId: string,
  now: Timestamp,
  window: PageWindow,
): Promise<ApiTokenRow[]> {
  return newestFirst(
    ex
      .selectFrom('api_tokens')
      .select(TOKEN_COLUMNS)
      .where('user_id', '=', userId)
      .where(activeApiToken(now)),
    window,
  ).execute()
}

/** Revokes one active token of the user; false when there is none with that id. */
export async function revokeApiToken(
  ex: Executor,
  userId: string,
  tokenId: string,
  now: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .where(activeApiToken(now))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
