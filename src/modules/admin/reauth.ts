/**
 * What an administrator proves before changing another account's credentials or privileges
 * (password, email, is_admin, disabled, MFA reset): an interactive session (a
 * leaked API token must not be able to take over accounts, its own included) and a fresh proof of
 * the administrator's own identity — the password when the account has one, and a TOTP or backup
 * code when MFA is on — through the same budgets as the self-service routes. On one's own account
 * these operations answer 409 SELF_SERVICE_REQUIRED naming the self-service route, which asks for
 * the proofs of docs/API.md#the-current-user and #two-factor-authentication.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Caller } from '../../identity/caller.js'
import { verifyCurrentPassword } from '../../identity/reauth.js'
import { assertSecondFactorIfEnabled } from '../mfa/service.js'

export interface AdminProof {
  /** The acting administrator's own password. */
  current_password?: string | undefined
  /** The acting administrator's TOTP or backup code, when their MFA is on. */
  code?: string | undefined
}

/**
 * Throws SESSION_REQUIRED, SELF_SERVICE_REQUIRED, or the re-authentication errors. `targetId` '' =
 * a new account.
 */
export async function assertAdminProof(
  deps: Deps,
  caller: Caller,
  targetId: string,
  proof: AdminProof,
  selfService: string,
): Promise<void> {
  if (caller.credential !== 'session') throw new AppError('SESSION_REQUIRED')
  if (targetId === caller.user.id)
    throw new AppError('SELF_SERVICE_REQUIRED', { details: selfService })
  await verifyCurrentPassword(deps, caller.user.id, proof.current_password)
  await assertSecondFactorIfEnabled(deps, caller.user.id, proof.code)
}

/**
 * For the instance's credential-equivalent changes — a SCIM credential, the SMTP server or sender,
 * an identity provider's issuer or trust — which hand whoever makes them a way into other accounts:
 * an interactive session (403 SESSION_REQUIRED to any token) and the administrator's own proof.
 */
export async function assertAdministratorProof(
  deps: Deps,
  caller: Caller,
  proof: AdminProof,
): Promise<void> {
  if (caller.credential !== 'session') throw new AppError('SESSION_REQUIRED')
  await verifyCurrentPassword(deps, caller.user.id, proof.current_password)
  await assertSecondFactorIfEnabled(deps, caller.user.id, proof.code)
}
