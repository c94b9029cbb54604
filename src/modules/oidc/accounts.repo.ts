/**
 * SQL for the OIDC identities on the users table: (oidc_provider, oidc_sub) is unique among linked
 * users (users_oidc_identity_key), so one identity can never belong to two accounts.
 */
import type { Executor, Timestamp } from '../../db/schema.js'
import { toUserRecord, USER_COLUMNS, type UserRecord } from '../../identity/user.js'

/**
 * The account linked to (issuer, subject) through this provider (a subject is unique only at its
 * issuer).
 */
export async function findUserByOidcIdentity(
  ex: Executor,
  identity: { providerKey: string; issuer: string; sub: string },
): Promise<UserRecord | null> {
  const row = await ex
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('oidc_provider', '=', identity.providerKey)
    .where('oidc_issuer', '=', identity.issuer)
    .where('oidc_sub', '=', identity.sub)
    .executeTakeFirst()
  return row === undefined ? null : toUserRecord(row)
}

/** Links an account that has no identity yet; null when it has one by now (a concurrent link). */
export async function linkOidcIdentity(
  ex: Executor,
  userId: string,
  identity: { providerKey: string; issuer: string; sub: string; at: Timestamp },
): Promise<UserRecord | null> {
  const row = await ex
    .updateTable('users')
    .set({
      oidc_provider: identity.providerKey,
      oidc_issuer: identity.issuer,
      oidc_sub: identity.sub,
      updated_at: identity.at,
    })
    .where('id', '=', userId)
    .where('oidc_sub', 'is', null)
    .returning(USER_COLUMNS)
    .executeTakeFirst()
  return row === undefined ? null : toUserRecord(row)
}

/** Whether the session is still live for this user: a link started in it may finish. */
export async function isLiveSessionOf(
  ex: Executor,
  sessionId: string,
  userId: string,
  now: Timestamp,
): Promise<boolean> {
  const row = await ex
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select('sessions.id')
    .where('sessions.id', '=', sessionId)
    .where('sessions.user_id', '=', userId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .where('users.disabled', '=', false)
    .executeTakeFirst()
  return row !== undefined
}

/** Unlinks one account; false when it had no identity (from this provider). */
export async function unlinkOidcIdentity(
  ex: Executor,
  userId: string,
  providerKey: string,
  at: Timestamp,
): Promise<boolean> {
  const result = await ex
    .updateTable('users')
    .set({ oidc_provider: null, oidc_issuer: null, oidc_sub: null, updated_at: at })
    .where('id', '=', userId)
    .where('oidc_provider', '=', providerKey)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** A renamed provider keeps its users: their identities follow the new key. */
export async function renameOidcIdentities(
  ex: Executor,
  rename: { from: string; to: string; at: Timestamp },
): Promise<void> {
  await ex
    .updateTable('users')
    .set({ oidc_provider: rename.to, updated_at: rename.at })
    .where('oidc_provider', '=', rename.from)
    .execute()
}

/** Unlinks every account of a deleted provider; returns how many. */
export async function unlinkOidcIdentities(
  ex: Executor,
  providerKey: string,
  at: Timestamp,
): Promise<number> {
  const result = await ex
    .updateTable('users')
    .set({ oidc_provider: null, oidc_issuer: null, oidc_sub: null, updated_at: at })
    .where('oidc_provider', '=', providerKey)
    .execute()
  return Number(result.reduce((sum, r) => sum + r.numUpdatedRows, 0n))
}
