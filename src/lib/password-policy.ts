/**
 * The password rules of docs/API.md#passwords, after NIST SP 800-63B §5.1.1.2: length 8–256
 * (counted in Unicode code points after NFKC normalisation), no composition rules, and a rejection
 * of the passwords attackers try first — the most common breached passwords, and the account's own
 * email.
 */
import { createRequire } from 'node:module'
import type { dictionary as Dictionary } from '@zxcvbn-ts/language-common'

// The dictionary package holds every zxcvbn word list (≈20 MiB once loaded); it is read when a
// password is first checked, not at start-up (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 256

let commonPasswords: Set<string> | undefined

function isCommonPassword(password: string): boolean {
  // The list (≈49 000 entries from breach corpora, MIT-licensed via zxcvbn-ts) is lower-case.
  commonPasswords ??= new Set(
    (require('@zxcvbn-ts/language-common') as { dictionary: typeof Dictionary }).dictionary[
      'passwords-common'
    ],
  )
  return commonPasswords.has(password.toLowerCase())
}

/** NFKC, so that visually identical passwords typed on different keyboards hash the same. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC')
}

/**
 * Why a password is refused: the English sentence, and the code (with its limit) a client
 * translates.
 */
export interface PasswordProblem {
  message: string
  code: 'too_short' | 'too_long' | 'same_as_email' | 'common_password'
  limit?: number
}

/**
 * Returns why the password is not acceptable, or null when it is. Expects a normalised password.
 */
export function passwordProblemDetail(
  password: string,
  email: string | null,
): PasswordProblem | null {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH)
    return {
      message: `must be at least ${PASSWORD_MIN_LENGTH} characters long`,
      code: 'too_short',
      limit: PASSWORD_MIN_LENGTH,
    }
  if (length > PASSWORD_MAX_LENGTH)
    return {
      message: `must be at most ${PASSWORD_MAX_LENGTH} characters long`,
      code: 'too_long',
      limit: PASSWORD_MAX_LENGTH,
    }
  if (email !== null && password.toLowerCase() === email.toLowerCase())
    return { message: 'must not be the same as the email address', code: 'same_as_email' }
  if (isCommonPassword(password))
    return {
      message: 'is too common: it appears in lists of breached passwords',
      code: 'common_password',
    }
  return null
}

/** The sentence of passwordProblemDetail alone. */
export function passwordProblem(password: string, email: string | null): string | null {
  return passwordProblemDetail(password, email)?.message ?? null
}
