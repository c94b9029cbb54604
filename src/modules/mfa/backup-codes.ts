/**
 * One-time backup codes (CONTRACT.md §6): 10 per set, each 10 characters from a 32-letter alphabet
 * without look-alikes (Crockford's base32: no I, L, O, U), shown as `xxxxx-xxxxx` — 50 bits each.
 * Accepted with or without the dash and in any case. Being well under 112 bits they are stored
 * with the slow password KDF (argon2id), salted per code.
 */
import { randomString } from '../../lib/random.js'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
export const BACKUP_CODES_PER_SET = 10
const CODE_LENGTH = 10

export function generateBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODES_PER_SET }, () => {
    const code = randomString(ALPHABET, CODE_LENGTH).toLowerCase()
    return `${code.slice(0, 5)}-${code.slice(5)}`
  })
}

/** The canonical form that is hashed (upper case, no dash), or null when it cannot be a backup code. */
export function normalizeBackupCode(input: string): string | null {
  const compact = /^[0-9A-Za-z]{5}-?[0-9A-Za-z]{5}$/.test(input) ? input.replace('-', '').toUpperCase() : null
  if (compact === null) return null
  return [...compact].every((c) => ALPHABET.includes(c)) ? compact : null
}
