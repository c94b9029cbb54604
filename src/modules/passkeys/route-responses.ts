/** What the passkey routes share: their tag; the proof some ask, its parts, errors and budget. */
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import { errorResponse } from '../../plugins/openapi.js'

export const tags = ['passkeys']
export const REAUTH = 'PASSWORD_REQUIRED, INVALID_PASSWORD'
export const SECOND_FACTOR =
  'SECOND_FACTOR_REQUIRED, INVALID_CODE, PASSKEY_VERIFICATION_FAILED (the proof)'
export const PROOF_BUDGET = errorResponse(
  'RATE_LIMITED: 10 wrong passwords, 10 wrong codes, 10 refused passkey answers per account per 15 minutes (three budgets)',
)

/** The proof a body carries: the password, a code, or an answer to a passkey challenge. */
export function proofOf(body: { password?: string; code?: string; passkey?: unknown }) {
  return {
    password: body.password,
    code: body.code,
    passkey: body.passkey as AuthenticationResponseJSON | undefined,
  }
}
