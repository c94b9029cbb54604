/**
 * First-run setup, password login, logout and the user's sessions (docs/API.md#authentication).
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { pageWindow } from '../../db/keyset.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { normalizePassword } from '../../lib/password-policy.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { createMfaChallenge, type MfaChallenge } from '../mfa/challenge.js'
import { isMfaEnabled } from '../mfa/service.js'
import {
  anyUserExists,
  findPasswordCandidateByEmail,
  findUserById,
  updateUser,
  type PasswordCandidate,
} from '../users/repo.js'
import { insertNewUser, normalizeEmail, prepareNewUser } from '../users/service.js'
import { loginCharges } from './login-limits.js'
import { listLiveSessions, revokeSession, setInstanceFlag } from './repo.js'
import { setupCodeMatches } from './setup-code.js'
import { clientStanding } from './known-clients.js'
import { issueSignIn, openSession, type SignIn } from '../../identity/session-issuer.js'

export interface SessionView {
  id: string
  created_at: string
  last_seen_at: string
  user_agent: string | null
  ip: string | null
  sign_in_method: string | null
  current: boolean
}

/** A completed first factor: either signed in, or waiting for the second factor. */
export type SignInOutcome =
  { kind: 'session'; signIn: SignIn } | { kind: 'mfa'; challenge: MfaChallenge }

/**
 * The end of every first factor (password, OIDC): a user with MFA gets an mfa_token instead of a
 * session (docs/API.md#password-sign-in, #identity-providers). Records last_login_at and the audit
 * event in one transaction.
 */
export async function beginSignIn(
  deps: Deps,
  userId: string,
  method: string,
  ctx: RequestContext,
  options: { idpMfa?: boolean } = {},
): Promise<SignInOutcome> {
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const user = await findUserById(tx, userId)
    if (user === null || user.disabled) throw new AppError('INVALID_CREDENTIALS')
    if (await isMfaEnabled(tx, userId)) {
      const challenge = await createMfaChallenge(deps, tx, userId, method)
      await recordAudit(tx, deps.clock, ctx, {
        action: 'auth.mfa_required',
        actor: user,
        target: { type: 'user', id: userId },
        metadata: { method },
      })
      return { kind: 'mfa' as const, challenge }
    }
    const updated =
      (await updateUser(tx, userId, { last_login_at: deps.clock.now().toISOString() })) ?? user
    const session = await openSession(deps, tx, userId, ctx, {
      method,
      idpMfa: options.idpMfa === true,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.login',
      actor: updated,
      target: { type: 'user', id: userId },
      metadata: {
        method,
        session_id: session.id,
        ...(options.idpMfa === true && { idp_mfa: true }),
      },
    })
    return { kind: 'session' as const, user: updated, session }
  })
  if (outcome.kind === 'mfa') return outcome
  return { kind: 'session', signIn: await issueSignIn(deps, outcome.user, outcome.session) }
}

export async function getSetupStatus(
  deps: Deps,
  fromLoopback: boolean,
): Promise<{ initialized: boolean; setup_code_required?: boolean }> {
  const initialized = await anyUserExists(deps.db)
  return initialized ? { initialized } : { initialized, setup_code_required: !fromLoopback }
}

export interface SetupInput {
  email: string
  name: string
  password: string
  setup_code?: string | undefined
}

/**
 * Creates the first user as administrator and signs them in. The once-only flag is inserted in the
 * same transaction as the user: of two concurrent calls, the second waits on the flag's unique key
 * and then finds it set, so exactly one user is created.
 */
export async function completeSetup(
  deps: Deps,
  input: SetupInput,
  ctx: RequestContext & { fromLoopback: boolean },
): Promise<SignIn> {
  if (await anyUserExists(deps.db)) throw new AppError('ALREADY_INITIALIZED')
  // From anywhere but the machine itself, the setup code of the log.
  if (
    !ctx.fromLoopback &&
    (input.setup_code === undefined || !setupCodeMatches(deps, input.setup_code))
  )
    throw new AppError('SETUP_CODE_REQUIRED')
  const row = await prepareNewUser(deps, {
    email: input.email,
    name: input.name,
    password: input.password,
    isAdmin: true,
  })
  const { user, session } = await deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    if (!(await setInstanceFlag(tx, 'setup_completed', now)) || (await anyUserExists(tx))) {
      throw new AppError('ALREADY_INITIALIZED')
    }
    const created = await insertNewUser(tx, { ...row, last_login_at: now })
    const opened = await openSession(deps, tx, created.id, ctx, { method: 'setup' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.setup',
      actor: created,
      target: { type: 'user', id: created.id },
      metadata: { session_id: opened.id },
    })
    return { user: created, session: opened }
  })
  return issueSignIn(deps, user, session)
}

/**
 * Checked before the body is examined (docs/API.md#status-rules): an exhausted budget answers 429
 * first.
 */
export async function assertLoginAllowed(
  deps: Deps,
  email: string | null,
  ip: string,
): Promise<void> {
  await deps.budgets.assertAvailable(
    loginCharges(email === null ? null : normalizeEmail(email), ip),
  )
}

export interface LoginInput {
  email: string
  password: string
}

export async function loginWithPassword(
  deps: Deps,
  input: LoginInput,
  ctx: RequestContext & { ip: string; device?: string | undefined },
): Promise<SignInOutcome> {
  const email = normalizeEmail(input.email)
  const password = normalizePassword(input.password)
  // Read before the reservation below, which counts as a failure until the attempt succeeds.
  const standing = await clientStanding(deps, {
    ip: ctx.ip,
    email,
    ...(ctx.device !== undefined && { device: ctx.device }),
  })
  // A sign-in the hashing bound would refuse anyway is refused before it costs a budget reservation
  // and a database lookup: under a flood most attempts are such refusals.
  deps.passwords.assertAdmits({ client: standing.client(), known: standing.mayBeKnown })
  // The attempt is reserved on every budget before anything is looked up or hashed, and given
  // back only when it succeeds (docs/API.md#rate-limits: failures count).
  const looked: { candidate: PasswordCandidate | null } = { candidate: null }
  const accepted = await deps.budgets.attempt(loginCharges(email, ctx.ip), async () => {
    const candidate = (looked.candidate = await findPasswordCandidateByEmail(deps.db, email))
    // A known client keeps its share of the hashing bound under a flood.
    const userId = candidate?.id ?? null
    const hashing = { client: standing.client(userId), known: standing.known(userId) }
    // Unknown email, or an account without a password: spend the same time as a real check, so the
    // response time does not tell which emails are registered.
    const verified = candidate?.password_hash
      ? await deps.passwords.verify(candidate.password_hash, password, hashing)
      : (await deps.passwords.verifyDummy(password, hashing), false)
    return verified && candidate !== null && !candidate.disabled ? candidate : null
  })

  if (accepted === null) {
    const failed = looked.candidate
    await recordAudit(deps.db, deps.clock, ctx, {
      action: 'auth.login_failed',
      actor: null,
      ...(failed !== null && { target: { type: 'user', id: failed.id } }),
      metadata: { email, method: 'password' },
    })
    throw new AppError('INVALID_CREDENTIALS')
  }

  return beginSignIn(deps, accepted.id, 'password', ctx)
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

export async function listSessions(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<SessionView>> {
  const window = pageWindow(query)
  const now = deps.clock.now()
  const idleSince = new Date(now.getTime() - deps.config.sessionIdleSeconds * 1000).toISOString()
  const rows = await listLiveSessions(deps.db, caller.user.id, now.toISOString(), idleSince, window)
  return toPage(
    rows,
    window.limit,
    (row) => ({ ...row, current: row.id === caller.sessionId }),
    (row) => [row.created_at, row.id],
  )
}

/** Revokes one of the caller's own live sessions; anything else is 404. */
export async function revokeOwnSession(
  deps: Deps,
  caller: Caller,
  sessionId: string,
  ctx: RequestContext,
): Promise<void> {
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
