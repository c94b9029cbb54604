/**
 * Signing in with a passkey: as the second factor after the password (or an identity provider),
 * bound to the `mfa_token`; or without a password (a discoverable credential with user
 * verification), bound to an attempt token. Every refusal is reserved on its budgets before the
 * signature is checked: 5 per mfa_token or attempt; at the second step (the password is known
 * already) 10 per account per 15 minutes, a budget of passkeys' own — passkey failures never spend
 * the budget of TOTP and backup codes. A sign-in without a password names its
 * account only through the credential id, which is no secret: an unverified answer there never
 * charges that account, only the attempt and the sign-in failures of the client's IP.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server'
import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema.js'
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Budget, BudgetCharge } from '../../lib/attempt-budget.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import { LOGIN_FAILURES_PER_IP } from '../auth/login-limits.js'
import { issueSignIn, openSession, type SignIn } from '../../identity/session-issuer.js'
import { WRONG_CODES_PER_CHALLENGE } from '../mfa/challenge.js'
import { consumeChallenge as consumeMfaChallenge, findLiveChallenge } from '../mfa/repo.js'
import { findUserById, updateUser } from '../users/repo.js'
import type { UserRecord } from '../../identity/user.js'
import { verifyAssertion, type AssertionOutcome } from './assertion.js'
import {
  findPasskeyByCredentialId,
  listPasskeys,
  putChallenge,
  type ChallengePurpose,
} from './repo.js'
import { CHALLENGE_TTL_SECONDS, relyingParty, verificationFailed, webauthn } from './webauthn.js'

/** A passwordless attempt gets one challenge; 5 refusals end it (like an mfa_token). */
export const WRONG_ASSERTIONS_PER_ATTEMPT: Budget = {
  name: 'passkey:attempt',
  limit: 5,
  windowSeconds: CHALLENGE_TTL_SECONDS,
}

/**
 * Wrong passkey answers for a known account (the second step, a proof for an account change): 10
 * per 15 minutes, apart from the codes' budget, so a passkey refusal never blocks TOTP or backup
 * codes.
 */
export const WRONG_ASSERTIONS_PER_ACCOUNT: Budget = {
  name: 'passkey:account',
  limit: 10,
  windowSeconds: 15 * 60,
}

export interface AssertionOptions {
  options: PublicKeyCredentialRequestOptionsJSON
  expires_at: string
}

export async function newAssertionOptions(
  deps: Deps,
  binding: { purpose: ChallengePurpose; binding: string; userId: string | null },
  allow: Array<{ credential_id: string; transports: string[] }>,
  userVerification: 'required' | 'preferred',
): Promise<AssertionOptions> {
  const { generateAuthenticationOptions } = await webauthn()
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    allowCredentials: allow.map((p) => ({ id: p.credential_id, transports: p.transports })),
    userVerification,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  })
  const now = deps.clock.now()
  const expiresAt = addSeconds(now, CHALLENGE_TTL_SECONDS).toISOString()
  await putChallenge(deps.db, {
    id: newId(),
    purpose: binding.purpose,
    binding: binding.binding,
    user_id: binding.userId,
    challenge: options.challenge,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  })
  return { options, expires_at: expiresAt }
}

async function pendingSignIn(
  deps: Deps,
  mfaToken: string,
): Promise<{ challenge: { id: string; method: string }; user: UserRecord }> {
  const challenge = await findLiveChallenge(
    deps.db,
    sha256Hex(mfaToken),
    deps.clock.now().toISOString(),
  )
  const user = challenge === null ? null : await findUserById(deps.db, challenge.user_id)
  if (challenge === null || user === null || user.disabled)
    throw new AppError('MFA_PENDING_INVALID')
  return { challenge, user }
}

/** The second step's challenge, for the account's own passkeys (404 when it has none). */
export async function beginPasskeyMfa(
  deps: Deps,
  input: { mfa_token: string },
): Promise<AssertionOptions> {
  const { challenge, user } = await pendingSignIn(deps, input.mfa_token)
  const passkeys = await listPasskeys(deps.db, user.id)
  if (passkeys.length === 0)
    throw new AppError('NOT_FOUND', { message: 'No passkey is registered for this account.' })
  // Presence is enough for a second factor; the password (or identity provider) was the first.
  return newAssertionOptions(
    deps,
    { purpose: 'mfa', binding: challenge.id, userId: user.id },
    passkeys,
    'preferred',
  )
}

/**
 * Runs the check under the budgets; a refusal is audited and thrown with its reason — as 401 at a
 * sign-in, with the reasons' own statuses (400, 409) when it was the proof for an account change.
 */
export async function checkAssertion(
  deps: Deps,
  charges: BudgetCharge[],
  check: Parameters<typeof verifyAssertion>[1],
  audit: {
    user: UserRecord | null
    ctx: RequestContext
    mode: 'second_factor' | 'passwordless' | 'proof'
  },
) {
  const refusal: { outcome: AssertionOutcome | null } = { outcome: null }
  const passkey = await deps.budgets.attempt(charges, async () => {
    const outcome = (refusal.outcome = await verifyAssertion(deps, check))
    return outcome.ok ? outcome.passkey : null
  })
  if (passkey !== null) return passkey
  const outcome = refusal.outcome
  const reason = outcome !== null && !outcome.ok ? outcome.reason : 'PASSKEY_VERIFICATION_FAILED'
  const message = outcome !== null && !outcome.ok ? outcome.message : undefined
  await recordAudit(deps.db, deps.clock, audit.ctx, {
    action: 'auth.passkey_failed',
    actor: audit.user,
    ...(audit.user !== null && { target: { type: 'user', id: audit.user.id } }),
    metadata: { reason, mode: audit.mode },
  })
  const signingIn = audit.mode !== 'proof'
  if (reason === 'PASSKEY_CHALLENGE_EXPIRED')
    throw new AppError(reason, signingIn ? { status: 401 } : {})
  throw verificationFailed(message ?? 'The passkey could not be verified.', signingIn ? 401 : 400)
}

/** Opens the session of a sign-in completed with a passkey, in the transaction that decides it. */
async function signInWith(
  deps: Deps,
  user: UserRecord,
  ctx: RequestContext,
  metadata: { method: string; passkey_id: string },
  inTransaction?: (tx: Transaction<Database>) => Promise<void>,
): Promise<SignIn> {
  const { signedIn, session } = await deps.db.transaction().execute(async (tx) => {
    if (inTransaction !== undefined) await inTransaction(tx)
    const updated =
      (await updateUser(tx, user.id, { last_login_at: deps.clock.now().toISOString() })) ?? user
    const opened = await openSession(deps, tx, user.id, ctx, { method: metadata.method })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.login',
      actor: updated,
      target: { type: 'user', id: user.id },
      metadata: { ...metadata, session_id: opened.id },
    })
    return { signedIn: updated, session: opened }
  })
  return issueSignIn(deps, signedIn, session)
}

/** Completes the second step with a passkey: the same 200 as any sign-in. */
export async function completePasskeyMfa(
  deps: Deps,
  input: { mfa_token: string; credential: AuthenticationResponseJSON },
  ctx: RequestContext,
): Promise<SignIn> {
  const { challenge, user } = await pendingSignIn(deps, input.mfa_token)
  const passkey = await checkAssertion(
    deps,
    // Narrowest first: a token over its own 5 does not spend the account's 10.
    [
      { budget: WRONG_CODES_PER_CHALLENGE, subject: challenge.id },
      { budget: WRONG_ASSERTIONS_PER_ACCOUNT, subject: user.id },
    ],
    {
      purpose: 'mfa',
      binding: challenge.id,
      credential: input.credential,
      userId: user.id,
      requireUserVerification: false,
    },
    { user, ctx, mode: 'second_factor' },
  )
  return signInWith(
    deps,
    user,
    ctx,
    { method: `${challenge.method}+passkey`, passkey_id: passkey.id },
    async (tx) => {
      if (!(await consumeMfaChallenge(tx, challenge.id, deps.clock.now().toISOString())))
        throw new AppError('MFA_PENDING_INVALID')
    },
  )
}

/**
 * Starts a sign-in without a password: an attempt token and a challenge any of the instance's
 * passkeys may answer.
 */
export async function beginPasswordless(
  deps: Deps,
): Promise<AssertionOptions & { attempt_token: string }> {
  const attemptToken = randomToken(32)
  const options = await newAssertionOptions(
    deps,
    { purpose: 'passwordless', binding: sha256Hex(attemptToken), userId: null },
    [],
    'required',
  )
  return { ...options, attempt_token: attemptToken }
}

/**
 * Completes a sign-in without a password; user verification is required (the passkey is both
 * factors).
 */
export async function completePasswordless(
  deps: Deps,
  input: { attempt_token: string; credential: AuthenticationResponseJSON },
  ctx: RequestContext & { ip: string },
): Promise<SignIn> {
  const binding = sha256Hex(input.attempt_token)
  // The credential id names an account before anything is verified, and anyone may know it:
  // charging that account here would let a stranger lock its second factor. The attempt and
  // the client's IP (the password sign-in's failure budget, 100 per 15 minutes) bound a forger
  // instead.
  const known = await findPasskeyByCredentialId(deps.db, input.credential.id)
  const user = known === null ? null : await findUserById(deps.db, known.user_id)
  const charges: BudgetCharge[] = [
    { budget: WRONG_ASSERTIONS_PER_ATTEMPT, subject: binding },
    { budget: LOGIN_FAILURES_PER_IP, subject: ctx.ip },
  ]
  const passkey = await checkAssertion(
    deps,
    charges,
    {
      purpose: 'passwordless',
      binding,
      credential: input.credential,
      userId: null,
      requireUserVerification: true,
    },
    { user, ctx, mode: 'passwordless' },
  )
  if (user === null || user.disabled || user.id !== passkey.user_id)
    throw verificationFailed('This account cannot sign in.', 401)
  return signInWith(deps, user, ctx, { method: 'passkey', passkey_id: passkey.id })
}
