/**
 * Opening a session and signing its access JWT — the last step of every sign-in (password,
 * second factor, first-run setup, OIDC).
 */
import type { Deps } from '../deps.js'
import type { Executor } from '../db/schema.js'
import { hmacBase64Url } from '../lib/crypto.js'
import { newId } from '../lib/ids.js'
import { addSeconds } from '../lib/time.js'
import type { RequestContext } from './caller.js'
import type { UserRecord } from './user.js'
import { insertSession, type NewSession } from './sessions.repo.js'

export interface SignIn {
  user: UserRecord
  token: string
  expiresAt: string
  sessionId: string
}

const USER_AGENT_MAX = 512

/** Inserts the session row within the caller's transaction. */
export async function openSession(
  deps: Deps,
  ex: Executor,
  userId: string,
  ctx: RequestContext,
  options: { method: string; idpMfa?: boolean },
): Promise<NewSession> {
  const now = deps.clock.now()
  const session: NewSession = {
    id: newId(),
    userId,
    createdAt: now.toISOString(),
    expiresAt: addSeconds(now, deps.config.sessionTtlSeconds).toISOString(),
    userAgent: ctx.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    ip: ctx.ip,
    idpMfa: options.idpMfa === true,
    // A sign-in is a proof of who the person is: it opens the re-authentication window.
    reauthenticatedAt: now.toISOString(),
    signInMethod: options.method.slice(0, 200),
  }
  await insertSession(ex, session)
  return session
}

/** Signs the access JWT for a committed session. */
export async function issueSignIn(
  deps: Deps,
  user: UserRecord,
  session: NewSession,
): Promise<SignIn> {
  const token = await deps.accessTokens.issue(
    { sub: user.id, sid: session.id },
    new Date(session.createdAt),
    new Date(session.expiresAt),
  )
  return { user, token, expiresAt: session.expiresAt, sessionId: session.id }
}

/** The double-submit CSRF token of a session (docs/API.md#csrf), bound to it by an HMAC. */
export function csrfTokenFor(deps: Deps, sessionId: string): string {
  return hmacBase64Url(deps.keys.csrf, `csrf:${sessionId}`)
}
