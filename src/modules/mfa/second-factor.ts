/**
 * Checking a second-factor code — a current TOTP code or an unused backup code — wherever one is
 * asked for: the sign-in second step, disabling MFA, regenerating backup codes, deleting the
 * account. Every rejected code (wrong, replayed, already used) counts against the account's
 * budget of 10 per 15 minutes (docs/API.md#two-factor-authentication), plus any budget the caller
 * adds (5 per mfa_token).
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Budget, BudgetCharge } from '../../lib/attempt-budget.js'
import { decrypt } from '../../lib/crypto.js'
import { backupCodeSelector, normalizeBackupCode } from './backup-codes.js'
import {
  advanceTotpStep,
  consumeBackupCode,
  findTotpFactor,
  listBackupCodeCandidates,
} from './repo.js'
import { matchTotpStep } from './totp.js'

export const WRONG_CODES_PER_ACCOUNT: Budget = {
  name: 'mfa:account',
  limit: 10,
  windowSeconds: 15 * 60,
}

export type SecondFactorMethod = 'totp' | 'backup_code'

/** The AES-GCM context (additional data) of a user's active TOTP secret. */
export function totpSecretContext(userId: string): string {
  return `mfa_totp.secret:${userId}`
}

async function acceptTotp(deps: Deps, userId: string, code: string): Promise<boolean> {
  const factor = await findTotpFactor(deps.db, userId)
  if (factor === null) return false
  const secret = decrypt(
    deps.secrets.encryptionKey,
    factor.secret_encrypted,
    totpSecretContext(userId),
  )
  const step = matchTotpStep(secret, code, deps.clock.now())
  return step !== null && (await advanceTotpStep(deps.db, userId, step))
}

/** One hash per attempt: the code its selector names, or a dummy of equal cost. */
async function acceptBackupCode(deps: Deps, userId: string, code: string): Promise<boolean> {
  const candidates = await listBackupCodeCandidates(deps.db, userId, backupCodeSelector(code))
  if (candidates.length === 0) {
    await deps.passwords.verifyDummy(code)
    return false
  }
  // One by one: only sets made before selectors existed have more than one candidate.
  for (const row of candidates) {
    if (await deps.passwords.verify(row.code_hash, code))
      return consumeBackupCode(deps.db, row.id, deps.clock.now().toISOString())
  }
  return false
}

async function acceptCode(
  deps: Deps,
  userId: string,
  code: string,
): Promise<SecondFactorMethod | null> {
  // The two kinds of code cannot be confused: six digits, or ten letters and digits.
  if (/^\d{6}$/.test(code)) return (await acceptTotp(deps, userId, code)) ? 'totp' : null
  const backupCode = normalizeBackupCode(code)
  if (backupCode === null) return null
  return (await acceptBackupCode(deps, userId, backupCode)) ? 'backup_code' : null
}

export interface SecondFactorCheck {
  userId: string
  code: string
  /** 401 at the sign-in second step, 400 for an account operation (docs/API.md#status-rules). */
  failureStatus: 400 | 401
  extraBudgets?: BudgetCharge[]
}

/** Accepts the code (consuming it) or throws RATE_LIMITED / INVALID_CODE. */
export async function verifySecondFactor(
  deps: Deps,
  check: SecondFactorCheck,
): Promise<SecondFactorMethod> {
  // Narrowest first: a token over its own 5 does not reach the account's 10 (see
  // AttemptBudgets.attempt).
  const charges = [
    ...(check.extraBudgets ?? []),
    { budget: WRONG_CODES_PER_ACCOUNT, subject: check.userId },
  ]
  const method = await deps.budgets.attempt(charges, () =>
    acceptCode(deps, check.userId, check.code),
  )
  if (method === null) throw new AppError('INVALID_CODE', { status: check.failureStatus })
  return method
}
