/**
 * One-time backup codes (docs/API.md#two-factor-authentication): 10 per set, each 10 characters
 * from a 32-letter alphabet without look-alikes (Crockford's base32: no I, L, O, U), shown as
 * `xxxxx-xxxxx` — 50 bits each. Accepted with or without the dash and in any case. Being well under
 * 112 bits they are stored with the slow password KDF (argon2id), salted per code.
 */
import { randomString } from '../../lib/random.js'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
export const BACKUP_CODES_PER_SET = 10
const CODE_LENGTH = 10

const SELECTOR_LENGTH = 2

/**
 * The selector of a canonical code: its first two characters (10 of its 50 bits), stored in clear
 * so an attempt is checked against the one code it can be, at the cost of one hash. The hash still
 * covers the whole code; 40 unknown bits under argon2id remain.
 */
export function backupCodeSelector(canonical: string): string {
  return canonical.slice(0, SELECTOR_LENGTH)
}

/** A set whose selectors are distinct, so every attempt matches at most one code. */
export function generateBackupCodes(): string[] {
  const bySelector = new Map<string, string>()
  while (bySelector.size < BACKUP_CODES_PER_SET) {
    const code = randomString(ALPHABET, CODE_LENGTH)
    if (!bySelector.has(backupCodeSelector(code))) bySelector.set(backupCodeSelector(code), code)
  }
  return [...bySelector.values()].map((code) =>
    `${code.slice(0, 5)}-${code.slice(5)}`.toLowerCase(),
  )
}

/**
 * The canonical form that is hashed (upper case, no dash), or null when it cannot be a backup code.
 */
export function normalizeBackupCode(input: string): string | null {
  const compact = /^[0-9A-Za-z]{5}-?[0-9A-Za-z]{5}$/.test(input)
    ? input.replace('-', '').toUpperCase()
    : null
  if (compact === null) return null
  return [...compact].every((c) => ALPHABET.includes(c)) ? compact : null
}
