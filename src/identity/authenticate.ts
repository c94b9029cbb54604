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
import { findLiveApiToken, touchApiToken } from './api-tokens.repo.js'
import { legacyTokensRefused } from './api-token-policy.js'
import { requirementOf } from './two-factor-requirement.js'
import type { Caller } from './caller.js'
import type { AccessTokenClaims } from './access-tokens.js'
import { findSession, touchSession, unexpired, type LiveSession } from './sessions.repo.js'

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

async function authenticateApiToken(
  deps: Deps,
  token: string,
  ip: string,
  withMfaStatus: boolean,
): Promise<Caller | null> {
  if (!isWellFormedApiToken(token)) return null
  const now = deps.clock.now()
  const found = await findLiveApiToken(deps.db, hashApiToken(token), now, withMfaStatus)
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

/**
 * The caller an access JWT's session stands for, given the session's row as the authentication
 * query read it (null: revoked, or its user disabled — the query does not match those). The rules
 * every session is held to, wherever its row was read: not expired at `now`, of the user the token
 * names, not idle for longer than SESSION_IDLE_TIMEOUT. Marks the session seen (at most once a
 * minute, not awaited).
 */
export function admitSession(
  deps: Deps,
  claims: AccessTokenClaims,
  session: LiveSession | null,
  now: Date,
): Caller | null {
  const found = unexpired(session, now)
  if (found === null || found.user.id !== claims.sub) return null
  // Idle timeout (SESSION_IDLE_TIMEOUT, ASVS 5.0 V7.3): last_seen_at moves at most once a minute,
  // so a session ends between the timeout and a minute after it.
  if (now.getTime() - found.lastSeenMs > deps.config.sessionIdleSeconds * 1000) return null
  if (isStale(found.lastSeenMs, now))
    touch(deps, now, (at, staleBefore) => touchSession(deps.db, claims.sid, at, staleBefore))
  return {
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
}

async function authenticateAccessJwt(
  deps: Deps,
  token: string,
  withMfaStatus: boolean,
): Promise<Caller | null> {
  const claims = await deps.accessTokens.verify(token)
  if (claims === null) return null
  const now = deps.clock.now()
  return admitSession(deps, claims, await findSession(deps.db, claims.sid, withMfaStatus), now)
}

/**
 * The caller a Bearer value (or the token cookie) stands for, or null when it is not valid now.
 * `withMfaStatus`: the route shows the MFA status (config.readsMfaStatus), so the credential's
 * query also reads its columns.
 */
export async function authenticateBearer(
  deps: Deps,
  token: string,
  ip: string,
  withMfaStatus = false,
): Promise<Caller | null> {
  if (token.startsWith(API_TOKEN_PREFIX))
    return authenticateApiToken(deps, token, ip, withMfaStatus)
  return authenticateAccessJwt(deps, token, withMfaStatus)
}
