/**
 * First-run setup, password login, logout and the user's sessions (CONTRACT.md §4).
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { hmacBase64Url } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { decodeCursor, toPage, type Page, type PageQuery, DEFAULT_PAGE_SIZE } from '../../lib/pagination.js'
import { normalizePassword } from '../../lib/password-policy.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit, type RequestContext } from '../audit/service.js'
import { anyUserExists, findPasswordCandidateByEmail, findUserById, updateUser, type UserRecord } from '../users/repo.js'
import { insertNewUser, normalizeEmail, prepareNewUser } from '../users/service.js'
import type { Caller } from './caller.js'
import { loginCharges } from './login-limits.js'
import { insertSession, listLiveSessions, revokeSession, setInstanceFlag, type NewSession } from './repo.js'

export interface SignIn {
  user: UserRecord
  token: string
  expiresAt: string
  sessionId: string
}

export interface SessionView {
  id: string
  created_at: string
  last_seen_at: string
  user_agent: string | null
  ip: string | null
  current: boolean
}

const USER_AGENT_MAX = 512

/** Inserts the session row within the caller's transaction. */
async function openSession(deps: Deps, ex: Executor, userId: string, ctx: RequestContext): Promise<NewSession> {
  const now = deps.clock.now()
  const session: NewSession = {
    id: newId(),
    userId,
    createdAt: now.toISOString(),
    expiresAt: addSeconds(now, deps.config.sessionTtlSeconds).toISOString(),
    userAgent: ctx.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    ip: ctx.ip,
  }
  await insertSession(ex, session)
  return session
}

/** Signs the access JWT for a committed session. */
async function signInWith(deps: Deps, user: UserRecord, session: NewSession): Promise<SignIn> {
  const token = await deps.accessTokens.issue(
    { sub: user.id, sid: session.id },
    new Date(session.createdAt),
    new Date(session.expiresAt),
  )
  return { user, token, expiresAt: session.expiresAt, sessionId: session.id }
}

/** The double-submit CSRF token of a session (CONTRACT.md §4.5), bound to it by an HMAC. */
export function csrfTokenFor(deps: Deps, sessionId: string): string {
  return hmacBase64Url(deps.keys.csrf, `csrf:${sessionId}`)
}

export async function getSetupStatus(deps: Deps): Promise<{ initialized: boolean }> {
  return { initialized: await anyUserExists(deps.db) }
}

export interface SetupInput {
  email: string
  name: string
  password: string
}

/**
 * Creates the first user as administrator and signs them in. The once-only flag is inserted in the
 * same transaction as the user: of two concurrent calls, the second waits on the flag's unique key
 * and then finds it set, so exactly one user is created.
 */
export async function completeSetup(deps: Deps, input: SetupInput, ctx: RequestContext): Promise<SignIn> {
  if (await anyUserExists(deps.db)) throw new AppError('ALREADY_INITIALIZED')
  const row = await prepareNewUser(deps, { ...input, isAdmin: true })
  const { user, session } = await deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    if (!(await setInstanceFlag(tx, 'setup_completed', now)) || (await anyUserExists(tx))) {
      throw new AppError('ALREADY_INITIALIZED')
    }
    const created = await insertNewUser(tx, { ...row, last_login_at: now })
    const opened = await openSession(deps, tx, created.id, ctx)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.setup',
      actor: created,
      target: { type: 'user', id: created.id },
      metadata: { session_id: opened.id },
    })
    return { user: created, session: opened }
  })
  return signInWith(deps, user, session)
}

/** Checked before the body is examined (CONTRACT.md §2.1): an exhausted budget answers 429 first. */
export async function assertLoginAllowed(deps: Deps, email: string | null, ip: string): Promise<void> {
  await deps.budgets.assertAvailable(loginCharges(email === null ? null : normalizeEmail(email), ip))
}

export interface LoginInput {
  email: string
  password: string
}

export async function loginWithPassword(deps: Deps, input: LoginInput, ctx: RequestContext & { ip: string }): Promise<SignIn> {
  const email = normalizeEmail(input.email)
  const charges = loginCharges(email, ctx.ip)
  await deps.budgets.assertAvailable(charges)

  const password = normalizePassword(input.password)
  const candidate = await findPasswordCandidateByEmail(deps.db, email)
  // Unknown email, or an account without a password: spend the same time as a real check, so the
  // response time does not tell which emails are registered.
  const verified = candidate?.password_hash
    ? await deps.passwords.verify(candidate.password_hash, password)
    : (await deps.passwords.verifyDummy(password), false)

  if (candidate === null || !verified || candidate.disabled) {
    await deps.budgets.charge(charges)
    await recordAudit(deps.db, deps.clock, ctx, {
      action: 'auth.login_failed',
      actor: null,
      ...(candidate !== null && { target: { type: 'user', id: candidate.id } }),
      metadata: { email, method: 'password' },
    })
    throw new AppError('INVALID_CREDENTIALS')
  }

  const { user, session } = await deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    const updated = await updateUser(tx, candidate.id, { last_login_at: now })
    if (updated === null) throw new AppError('INVALID_CREDENTIALS')
    const opened = await openSession(deps, tx, updated.id, ctx)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.login',
      actor: updated,
      target: { type: 'user', id: updated.id },
      metadata: { method: 'password', session_id: opened.id },
    })
    return { user: updated, session: opened }
  })
  return signInWith(deps, user, session)
}

/** Ends the caller's session server-side; an API-token caller has no session to end. */
export async function logout(deps: Deps, caller: Caller, ctx: RequestContext): Promise<void> {
  if (caller.sessionId === null) return
  const sessionId = caller.sessionId
  await deps.db.transaction().execute(async (tx) => {
    await revokeSession(tx, caller.user.id, sessionId, deps.clock.now().toISOString())
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.logout',
      actor: caller.user,
      target: { type: 'session', id: sessionId },
    })
  })
}

export async function listSessions(deps: Deps, caller: Caller, query: PageQuery): Promise<Page<SessionView>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const rows = await listLiveSessions(deps.db, caller.user.id, deps.clock.now().toISOString(), {
    limit,
    after: decodeCursor(query.cursor),
  })
  return toPage(
    rows,
    limit,
    (row) => ({ ...row, current: row.id === caller.sessionId }),
    (row) => [row.created_at, row.id],
  )
}

/** Revokes one of the caller's own live sessions; anything else is 404. */
export async function revokeOwnSession(deps: Deps, caller: Caller, sessionId: string, ctx: RequestContext): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    if (!(await revokeSession(tx, caller.user.id, sessionId, deps.clock.now().toISOString()))) {
      throw new AppError('NOT_FOUND', { message: 'No such session.' })
    }
    await recordAudit(tx, deps.clock, ctx, {
      action: 'session.revoke',
      actor: caller.user,
      target: { type: 'session', id: sessionId },
      metadata: { current: sessionId === caller.sessionId },
    })
  })
}

/** Re-reads the caller, for responses that must reflect a change made in this request. */
export async function reloadUser(deps: Deps, userId: string): Promise<UserRecord> {
  const user = await findUserById(deps.db, userId)
  if (user === null) throw new AppError('UNAUTHORIZED')
  return user
}
