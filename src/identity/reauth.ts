/**
 * Re-authentication for sensitive account operations (password change, account deletion, MFA
 * changes): the caller proves again that they know the password, when the account has one.
 * Wrong passwords are budgeted per account, so a stolen session cannot be used to guess the
 * password at full speed.
 *
 * The re-authentication window ("sudo mode", as GitHub's): a session whose holder proved
 * who they are — at its sign-in, or through POST /api/auth/reauthenticate with the password and the
 * account's second factor — may leave the proof out of a sensitive change for
 * REAUTH_WINDOW_SECONDS. The window is a column of the session row, read with it at authentication,
 * so a stolen session outside its window still needs the password (and another session of the
 * account has its own). A proof that is sent is always checked, window or not.
 */
import type { Deps } from '../deps.js'
import { AppError } from '../errors.js'
import type { Caller } from './caller.js'
import type { Budget } from '../lib/attempt-budget.js'
import { normalizePassword } from '../lib/password-policy.js'
import { findPasswordHash } from './user.js'

export const REAUTH_FAILURES_PER_USER: Budget = {
  name: 'reauth:user',
  limit: 10,
  windowSeconds: 15 * 60,
}

/**
 * Throws PASSWORD_REQUIRED / INVALID_PASSWORD / RATE_LIMITED unless the password is right (or the
 * account has none).
 */
export async function verifyCurrentPassword(
  deps: Deps,
  userId: string,
  password: string | undefined,
): Promise<void> {
  const hash = await findPasswordHash(deps.db, userId)
  if (hash === null) return
  if (password === undefined) throw new AppError('PASSWORD_REQUIRED')
  const charges = [{ budget: REAUTH_FAILURES_PER_USER, subject: userId }]
  // Reserved before the hash runs, given back on success.
  const ok = await deps.budgets.attempt(charges, async () =>
    (await deps.passwords.verify(hash, normalizePassword(password))) ? true : null,
  )
  if (ok === null) throw new AppError('INVALID_PASSWORD')
}

/** How long a proof of identity lets sensitive changes through without another. */
export const REAUTH_WINDOW_SECONDS = 10 * 60

/** When the caller's window closes (null: none is open). Only an interactive session has one. */
export function reauthenticatedUntil(deps: Deps, caller: Caller): Date | null {
  if (caller.credential !== 'session' || caller.reauthenticatedMs === null) return null
  const until = caller.reauthenticatedMs + REAUTH_WINDOW_SECONDS * 1000
  return deps.clock.now().getTime() < until ? new Date(until) : null
}

/** Whether the caller's session is inside its re-authentication window now. */
export function isReauthenticated(deps: Deps, caller: Caller): boolean {
  return reauthenticatedUntil(deps, caller) !== null
}

/** The password as verifyCurrentPassword checks it — which may be left out inside the window. */
export async function provePasswordOrWindow(
  deps: Deps,
  caller: Caller,
  password: string | undefined,
): Promise<void> {
  if (password === undefined && isReauthenticated(deps, caller)) return
  await verifyCurrentPassword(deps, caller.user.id, password)
}

/**
 * For changes that take no proof in their request (linking or unlinking an identity provider): the
 * window must be open. PASSWORD_REQUIRED tells an account with a password to re-authenticate;
 * an account without one signs in again (RECENT_SIGN_IN_REQUIRED).
 */
export function assertReauthenticated(deps: Deps, caller: Caller): void {
  if (isReauthenticated(deps, caller)) return
  if (caller.user.has_password) {
    throw new AppError('PASSWORD_REQUIRED', {
      message: 'Confirm your password first (POST /api/auth/reauthenticate), then try again.',
    })
  }
  throw new AppError('RECENT_SIGN_IN_REQUIRED')
}
