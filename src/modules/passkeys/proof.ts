/**
 * The proof that changes to an account's second factors need: adding a passkey,
 * and removing the last second factor. A passkey signs in on its own (it is both factors), so
 * whoever holds only a session and the password must not be able to add one to an account that has
 * a second factor — it would replace both the password and the factor the owner set up.
 *
 * - The first factor: the password, when the account has one (identity/reauth.ts, its budget). An
 *   account without a password (it signs in through an identity provider) proves itself by a recent
 *   sign-in instead: its session was opened within the last 5 minutes (NIST SP 800-63B §4.2.3 asks
 *   for a fresh authentication before a new authenticator is bound). An older, perhaps stolen,
 *   session is not enough; signing in again at the provider opens a fresh one.
 * - The second factor, when the account has one, now: a current TOTP code or an unused backup code
 *   (mfa/second-factor.ts, the codes' budget), or the answer of a passkey already registered to a
 *   challenge bound to this session (`POST /api/auth/passkeys/proof/options`; the passkeys' own
 *   budget, so a refused passkey never blocks the codes).
 */
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { isReauthenticated, provePasswordOrWindow } from '../../identity/reauth.js'
import { findSessionStart } from '../../identity/sessions.repo.js'
import { verifySecondFactor } from '../mfa/second-factor.js'
import { isMfaEnabled } from '../mfa/service.js'
import { listPasskeys } from './repo.js'
import {
  checkAssertion,
  newAssertionOptions,
  WRONG_ASSERTIONS_PER_ACCOUNT,
  type AssertionOptions,
} from './sign-in.js'

/** How old a session may be to stand for the password of an account that has none. */
export const RECENT_SIGN_IN_SECONDS = 5 * 60

export interface FactorProof {
  password?: string | undefined
  /** A TOTP code or a backup code. */
  code?: string | undefined
  /** A registered passkey's answer to this session's proof challenge. */
  passkey?: AuthenticationResponseJSON | undefined
}

/** How a second factor was shown: now, or by the session's re-authentication window. */
export type ProvenFactor = 'totp' | 'backup_code' | 'passkey' | 'reauthentication'

/**
 * The password, or for an account without one a recent sign-in (RECENT_SIGN_IN_REQUIRED): the
 * session's re-authentication window, which its sign-in opened, or a session opened
 * within the last 5 minutes (one without a window: opened before the window existed).
 */
export async function proveFirstFactor(
  deps: Deps,
  caller: Caller,
  password: string | undefined,
): Promise<void> {
  if (caller.user.has_password) return provePasswordOrWindow(deps, caller, password)
  if (isReauthenticated(deps, caller)) return
  const started =
    caller.sessionId === null ? null : await findSessionStart(deps.db, caller.sessionId)
  const age = started === null ? Infinity : deps.clock.now().getTime() - Date.parse(started)
  if (!(age <= RECENT_SIGN_IN_SECONDS * 1000)) throw new AppError('RECENT_SIGN_IN_REQUIRED')
}

/**
 * The second factor given, or — when none is — the session's re-authentication window,
 * which stands for both factors. Not for POST /api/auth/reauthenticate itself, which opens it.
 */
export async function proveSecondFactorOrWindow(
  deps: Deps,
  caller: Caller,
  proof: FactorProof,
  ctx: RequestContext,
): Promise<ProvenFactor> {
  if (proof.code === undefined && proof.passkey === undefined && isReauthenticated(deps, caller))
    return 'reauthentication'
  return proveSecondFactor(deps, caller, proof, ctx)
}

/**
 * Checks the second factor given (consuming a code or the challenge); SECOND_FACTOR_REQUIRED when
 * none is.
 */
export async function proveSecondFactor(
  deps: Deps,
  caller: Caller,
  proof: FactorProof,
  ctx: RequestContext,
): Promise<ProvenFactor> {
  if (proof.code !== undefined && proof.passkey !== undefined)
    throw invalidField('passkey', 'send either a code or a passkey, not both')
  if (proof.passkey !== undefined) {
    await checkAssertion(
      deps,
      [{ budget: WRONG_ASSERTIONS_PER_ACCOUNT, subject: caller.user.id }],
      {
        purpose: 'proof',
        binding: caller.sessionId!,
        credential: proof.passkey,
        userId: caller.user.id,
        requireUserVerification: false,
      },
      { user: caller.user, ctx, mode: 'proof' },
    )
    return 'passkey'
  }
  if (proof.code !== undefined)
    return verifySecondFactor(deps, {
      userId: caller.user.id,
      code: proof.code,
      failureStatus: 400,
    })
  throw new AppError('SECOND_FACTOR_REQUIRED')
}

/**
 * The proof for adding a second factor: the first factor, then — when the account has a second
 * factor already — that factor. Returns how the second factor was proven (null: there was none).
 */
export async function proveForNewFactor(
  deps: Deps,
  caller: Caller,
  proof: FactorProof,
  ctx: RequestContext,
): Promise<ProvenFactor | null> {
  await proveFirstFactor(deps, caller, proof.password)
  if (!(await isMfaEnabled(deps.db, caller.user.id))) return null
  return proveSecondFactorOrWindow(deps, caller, proof, ctx)
}

/**
 * A challenge for the account's own passkeys, bound to this session, for a proof (404 without a
 * passkey).
 */
export async function beginPasskeyProof(deps: Deps, caller: Caller): Promise<AssertionOptions> {
  const passkeys = await listPasskeys(deps.db, caller.user.id)
  if (passkeys.length === 0)
    throw new AppError('NOT_FOUND', { message: 'No passkey is registered for this account.' })
  // Presence is enough, as at the sign-in's second step: the session and the first factor are the
  // rest.
  return newAssertionOptions(
    deps,
    { purpose: 'proof', binding: caller.sessionId!, userId: caller.user.id },
    passkeys,
    'preferred',
  )
}
