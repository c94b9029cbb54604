/**
 * SQL for the API token a request presents: the per-request lookup that answers everything the
 * request needs to know, its activity mark, and revoking all of a user's tokens (what a credential
 * change may ask for). The secret itself is never stored, only its SHA-256.
 */
import { sql } from 'kysely'
import { precompiled } from '../db/precompiled.js'
import { epochMs } from '../lib/time.js'
import type { Executor, Timestamp } from '../db/schema.js'
import { USER_COLUMNS, toUserRecord, type UserRecord } from './user.js'
import type { TokenGrant } from './caller.js'
import { grantedSet } from './permissions.js'
import {
  MFA_POLICY_COLUMNS,
  MFA_STATUS_COLUMNS,
  toMfaState,
  toMfaStatusState,
  type MfaState,
} from './second-factor.js'
import { settingValue } from './setting-value.js'
import { TWO_FACTOR_POLICY_KEY } from './two-factor-requirement.js'
import { API_TOKEN_POLICY_KEY } from './api-token-policy.js'

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

// As the session lookup (sessions.repo.ts), ONE query for everything the request needs to know:
// the token, its owner, whether the owner has a second factor and the policies that apply — and,
// for the route that shows it (config.readsMfaStatus), the MFA status's columns.
// No clock value in the query: on SQLite its rows are kept until the database changes
// (db/sqlite.ts ReadCache), so the expiry is compared in findLiveApiToken instead.
const TOKEN_COLUMNS = [
  ...USER_COLUMNS,
  'api_tokens.id as token_id',
  'api_tokens.last_used_at as token_last_used_at',
  'api_tokens.expires_at as token_expires_at',
  'api_tokens.permissions as token_permissions',
  'api_tokens.organization_ids as token_organization_ids',
  settingValue(TWO_FACTOR_POLICY_KEY).as('two_factor_policy'),
  settingValue(API_TOKEN_POLICY_KEY).as('token_policy'),
] as const

type TokenRow = Parameters<typeof toUserRecord>[0] & {
  token_id: string
  token_last_used_at: Timestamp | null
  token_expires_at: Timestamp | null
  token_permissions: string | null
  token_organization_ids: string | null
  two_factor_policy: string | null
  token_policy: string | null
}

function liveTokenBy(ex: Executor, tokenHash: string) {
  return ex
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .where('api_tokens.token_hash', '=', tokenHash)
    .where('api_tokens.revoked_at', 'is', null)
    .where('users.disabled', '=', false)
}

function toLiveToken(row: TokenRow, mfa: MfaState): LiveApiToken {
  return {
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
    mfa,
    twoFactorPolicy: row.two_factor_policy,
    tokenPolicy: row.token_policy,
  }
}

const selectLiveToken = precompiled(
  ['tokenHash'],
  (ex, p) => liveTokenBy(ex, p.tokenHash).select([...TOKEN_COLUMNS, ...MFA_POLICY_COLUMNS]),
  (row): LiveApiToken => toLiveToken(row, toMfaState(row)),
)

const selectLiveTokenWithMfaStatus = precompiled(
  ['tokenHash'],
  (ex, p) => liveTokenBy(ex, p.tokenHash).select([...TOKEN_COLUMNS, ...MFA_STATUS_COLUMNS]),
  (row): LiveApiToken => toLiveToken(row, toMfaStatusState(row)),
)

/**
 * The per-request lookup for token authentication: one read through the unique hash index (with
 * the MFA status's columns when asked). The result may be shared with other requests (frozen):
 * read it, do not change it.
 */
export async function findLiveApiToken(
  ex: Executor,
  tokenHash: string,
  now: Date,
  withMfaStatus = false,
): Promise<LiveApiToken | null> {
  const select = withMfaStatus ? selectLiveTokenWithMfaStatus : selectLiveToken
  const [found] = await select(ex, { tokenHash })
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

/** Active = not revoked and not expired. */
export function activeApiToken(now: Timestamp) {
  return sql<boolean>`revoked_at is null and (expires_at is null or expires_at > ${now})`
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
    .where(activeApiToken(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
