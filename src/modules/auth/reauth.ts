/**
 * Re-authentication for sensitive account operations (password change, account deletion, MFA
 * changes): the caller proves again that they know the password, when the account has one.
 * Wrong passwords are budgeted per account, so a stolen session cannot be used to guess the
 * password at full speed.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Budget } from '../../lib/attempt-budget.js'
import { normalizePassword } from '../../lib/password-policy.js'
import { findPasswordHash } from '../users/repo.js'

export const REAUTH_FAILURES_PER_USER: Budget = { name: 'reauth:user', limit: 10, windowSeconds: 15 * 60 }

/** Throws PASSWORD_REQUIRED / INVALID_PASSWORD / RATE_LIMITED unless the password is right (or the account has none). */
export async function verifyCurrentPassword(deps: Deps, userId: string, password: string | undefined): Promise<void> {
  const hash = await findPasswordHash(deps.db, userId)
  if (hash === null) return
  if (password === undefined) throw new AppError('PASSWORD_REQUIRED')
  const charges = [{ budget: REAUTH_FAILURES_PER_USER, subject: userId }]
  // Reserved before the hash runs, given back on success (issue #11 item 1).
  const ok = await deps.budgets.attempt(charges, async () => ((await deps.passwords.verify(hash, normalizePassword(password))) ? true : null))
  if (ok === null) throw new AppError('INVALID_PASSWORD')
}
