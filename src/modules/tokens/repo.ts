/** SQL for personal API tokens. The secret itself is never stored, only its SHA-256. */
import { sql } from 'kysely'
import { precompiled } from '../../db/precompiled.js'
import { epochMs } from '../../lib/time.js'
import type { Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { USER_COLUMNS, toUserRecord, type UserRecord } from '../users/repo.js'
import type { TokenGrant } from '../../identity/caller.js'
import { grantedSet } from '../../identity/permissions.js'
import { MFA_POLICY_COLUMNS, toMfaState, type MfaState } from '../mfa/repo.js'
import { settingValue } from '../settings/repo.js'
import { TWO_FACTOR_POLICY_KEY } from '../../identity/two-factor-requirement.js'

/** The settings row of the instance's API token policy (its section in policy.ts). */
export const API_TOKEN_POLICY_KEY = 'api_tokens'

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

/** Active = not revoked and not expired. */
function active(now: Timestamp) {
  return sql<boolean>`revoked_at is null and (expires_at is null or expires_at > ${now})`
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
    .where(active(now))
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
      .where(active(now)),
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
    .where(active(now))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/**
 * Revokes every active token of the user; returns how many. Called inside the transaction of the
 * credential change that asks for it: a password change or MFA enabled with "also revoke my API
 * tokens", an administrator's MFA reset or password change.
 */
export async function revokeAllApiTokens(
  ex: Executor,
  userId: string,
  now: Timestamp,
): Promise<number> {
  const result = await ex
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where(active(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

export interface LiveApiToken {
  user: UserRecord
  tokenId: string
  grant: TokenGrant
  /**
   * last_used_at and expires_at as epoch milliseconds (null when unset), parsed once per row read.
   */
  lastUsedMs: number | null
  expiresMs: number | null
  mfa: MfaState
  /**
   * The two-factor policy's and the API token policy's settings rows (JSON text; null when never
   * set).
   */
  twoFactorPolicy: string | null
  tokenPolicy: string | null
}

// As the session lookup (auth/repo.ts), ONE query for everything the request needs to know
//: the token, its owner, whether the owner has a second factor and the policies that
// apply. (The MFA status is session-only: a token never reads its columns.)
// No clock value in the query: on SQLite its rows are kept until the database changes
// (db/sqlite.ts ReadCache), so the expiry is compared in findLiveApiToken instead.
const selectLiveToken = precompiled(
  ['tokenHash'],
  (ex, p) =>
    ex
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        ...USER_COLUMNS,
        'api_tokens.id as token_id',
        'api_tokens.last_used_at as token_last_used_at',
        'api_tokens.expires_at as token_expires_at',
        'api_tokens.permissions as token_permissions',
        'api_tokens.organization_ids as token_organization_ids',
        ...MFA_POLICY_COLUMNS,
        settingValue(TWO_FACTOR_POLICY_KEY).as('two_factor_policy'),
        settingValue(API_TOKEN_POLICY_KEY).as('token_policy'),
      ])
      .where('api_tokens.token_hash', '=', p.tokenHash)
      .where('api_tokens.revoked_at', 'is', null)
      .where('users.disabled', '=', false),
  (row): LiveApiToken => ({
    user: toUserRecord(row),
    tokenId: row.token_id,
    grant: {
      permissions:
        row.token_permissions === null
          ? null
          : grantedSet(JSON.parse(row.token_permissions) as string[]),
      organizations:
        row.token_organization_ids === null
          ? null
          : new Set(JSON.parse(row.token_organization_ids) as string[]),
    },
    lastUsedMs: epochMs(row.token_last_used_at),
    expiresMs: epochMs(row.token_expires_at),
    mfa: toMfaState(row),
    twoFactorPolicy: row.two_factor_policy,
    tokenPolicy: row.token_policy,
  }),
)

/**
 * The per-request lookup for token authentication: one read through the unique hash index. The
 * result may be shared with other requests (frozen): read it, do not change it.
 */
export async function findLiveApiToken(
  ex: Executor,
  tokenHash: string,
  now: Date,
): Promise<LiveApiToken | null> {
  const [found] = await selectLiveToken(ex, { tokenHash })
  if (found === undefined || (found.expiresMs !== null && found.expiresMs <= now.getTime()))
    return null
  return found
}

/**
 * Moves last_used_at (and the address it was used from) forward only when it is older than
 * `staleBefore`: at most one write a minute.
 */
export async function touchApiToken(
  ex: Executor,
  tokenId: string,
  ip: string,
  now: Timestamp,
  staleBefore: Timestamp,
): Promise<void> {
  await ex
    .updateTable('api_tokens')
    .set({ last_used_at: now, last_used_ip: ip })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute()
}
