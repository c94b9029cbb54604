/**
 * Resolving the credential of a request to a Caller: the hot path of every authenticated request.
 *
 * - A personal API token (`sb_…`) is checked for shape and checksum first (no database work for a
 *   made-up token), then found by its SHA-256 through a unique index, joined to its user. The row
 *   carries the token's permissions and organization boundary, so checking them costs
 *   no further query.
 * - An access JWT costs one signature check (cached once verified) and one lookup of its session
 *   joined to the user, both by primary key.
 *
 * Either lookup is the request's ONE query: it also brings the user's MFA state and the
 * policies (two-factor, legacy tokens), so the policy check and GET /api/auth/mfa/status need no
 * other, and a change of any of them applies at the very next request on every instance.
 *
 * A session also ends after SESSION_IDLE_TIMEOUT without a request. Either way it is one indexed
 * read; on SQLite its rows are kept until the database changes (db/sqlite.ts ReadCache).
 * `last_used_at` / `last_seen_at` are written at most once a minute, after the answer and never
 * awaited, so a request does not wait on a write.
 */
import type { Deps } from '../deps.js'
import { API_TOKEN_PREFIX, hashApiToken, isWellFormedApiToken } from './token-format.js'
import { findLiveApiToken, touchApiToken } from '../modules/tokens/repo.js'
import { legacyTokensRefused } from '../modules/tokens/policy.js'
import { requirementOf } from './two-factor-requirement.js'
import type { Caller } from './caller.js'
import { findLiveSession, touchSession, unexpired, type LiveSession } from '../modules/auth/repo.js'

const TOUCH_INTERVAL_MS = 60_000

/** Whether last_used_at / last_seen_at is due to move (checked before any closure is made). */
function isStale(lastTouchedMs: number | null, now: Date): boolean {
  return lastTouchedMs === null || now.getTime() - lastTouchedMs >= TOUCH_INTERVAL_MS
}

function touch(
  deps: Deps,
  now: Date,
  write: (now: string, staleBefore: string) => Promise<void>,
): void {
  const staleBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString()
  write(now.toISOString(), staleBefore).catch((error: Error) =>
    deps.logger.warn({ error: { message: error.message } }, 'could not record credential activity'),
  )
}

async function authenticateApiToken(deps: Deps, token: string, ip: string): Promise<Caller | null> {
  if (!isWellFormedApiToken(token)) return null
  const now = deps.clock.now()
  const found = await findLiveApiToken(deps.db, hashApiToken(token), now)
  if (found === null) return null
  // Only a legacy (full-access) token is subject to the instance's token policy, read with the
  // token.
  if (found.grant.permissions === null && legacyTokensRefused(found.tokenPolicy, now)) return null
  if (isStale(found.lastUsedMs, now))
    touch(deps, now, (at, staleBefore) =>
      touchApiToken(deps.db, found.tokenId, ip, at, staleBefore),
    )
  return {
    user: found.user,
    credential: 'api_token',
    sessionId: null,
    tokenId: found.tokenId,
    grant: found.grant,
    mfa: found.mfa,
    twoFactorPolicy: requirementOf(found.twoFactorPolicy),
    vouchedByProvider: false,
    reauthenticatedMs: null,
  }
}

async function authenticateAccessJwt<T>(
  deps: Deps,
  token: string,
  withMfaStatus: boolean,
  beside: ReadBeside<T> | null,
): Promise<Authenticated<T>> {
  const claims = await deps.accessTokens.verify(token)
  if (claims === null) return NOBODY
  const now = deps.clock.now()
  let found: LiveSession | null
  let read: T | null = null
  if (beside === null) found = await findLiveSession(deps.db, claims.sid, now, withMfaStatus)
  else {
    const both = await beside.withSession(claims.sid, claims.sub)
    found = unexpired(both.session, now)
    read = both.read
  }
  if (found === null || found.user.id !== claims.sub) return NOBODY
  // Idle timeout (SESSION_IDLE_TIMEOUT, ASVS 5.0 V7.3): last_seen_at moves at most once a minute,
  // so a session ends between the timeout and a minute after it.
  if (now.getTime() - found.lastSeenMs > deps.config.sessionIdleSeconds * 1000) return NOBODY
  if (isStale(found.lastSeenMs, now))
    touch(deps, now, (at, staleBefore) => touchSession(deps.db, claims.sid, at, staleBefore))
  const caller: Caller = {
    user: found.user,
    credential: 'session',
    sessionId: claims.sid,
    tokenId: null,
    grant: null,
    mfa: found.mfa,
    twoFactorPolicy: requirementOf(found.twoFactorPolicy),
    vouchedByProvider: found.vouchedByProvider,
    reauthenticatedMs: found.reauthenticatedMs,
  }
  return { caller, read }
}

/**
 * A caller, and what a read beside its authentication found for that caller's user (null when none
 * ran).
 */
export interface Authenticated<T> {
  caller: Caller | null
  read: T | null
}

const NOBODY = { caller: null, read: null } as const

/**
 * The caller a Bearer value (or the token cookie) stands for, or null when it is not valid now.
 * `withMfaStatus`: the route shows the MFA status (config.readsMfaStatus), so a session's query
 * also reads its columns.
 */
export async function authenticateBearer(
  deps: Deps,
  token: string,
  ip: string,
  withMfaStatus = false,
): Promise<Caller | null> {
  if (token.startsWith(API_TOKEN_PREFIX)) return authenticateApiToken(deps, token, ip)
  return (await authenticateAccessJwt(deps, token, withMfaStatus, null)).caller
}

/** A read for the caller's user, made with their authentication (authenticateBearerWith). */
export interface ReadBeside<T> {
  /**
   * The read on its own, after the lookup of an sb_ token (only the token's row names the user).
   */
  forUser(userId: string): Promise<T>
  /**
   * The session's lookup (auth/repo.ts liveSessionQuery, its expiry unchecked) and the read in one
   * statement, for the session and the user an access JWT names.
   */
  withSession(sessionId: string, userId: string): Promise<{ session: LiveSession | null; read: T }>
}

/**
 * authenticateBearer, and a read that needs only the user's id. An access JWT names its user in its
 * verified claims, so the read is made in the session's own lookup instead of after it (the
 * redirect of /go/{slug}: one statement and one round trip on PostgreSQL instead of two). Its
 * answer is handed over only with a caller of that same user — when the session is not live it is
 * dropped unseen. For an sb_ token the user is known only from the token's row: the read follows
 * it.
 */
export async function authenticateBearerWith<T>(
  deps: Deps,
  token: string,
  ip: string,
  beside: ReadBeside<T>,
): Promise<Authenticated<T>> {
  if (!token.startsWith(API_TOKEN_PREFIX)) return authenticateAccessJwt(deps, token, false, beside)
  const caller = await authenticateApiToken(deps, token, ip)
  return caller === null ? NOBODY : { caller, read: await beside.forUser(caller.user.id) }
}
