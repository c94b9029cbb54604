/**
 * The personal API token format of docs/API.md#personal-api-tokens:
 *
 *   sb_ + 32 random base62 characters + 6 base62 characters of CRC-32 (IEEE) over those 32
 *
 * 41 characters, ≥190 bits of entropy. The checksum lets a mistyped or made-up token be refused
 * without touching the database, and the distinctive shape lets secret scanners recognise it.
 */
import { crc32 } from 'node:zlib'
import { randomString } from '../lib/random.js'
import { sha256Hex } from '../lib/crypto.js'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const API_TOKEN_PREFIX = 'sb_'
const RANDOM_LENGTH = 32
const CHECKSUM_LENGTH = 6
const SHAPE = /^sb_[0-9A-Za-z]{38}$/

/** A number in base62, most significant digit first, left-padded with '0' to `width`. */
export function toBase62(value: number, width: number): string {
  let out = ''
  let rest = value
  do {
    out = BASE62[rest % 62] + out
    rest = Math.floor(rest / 62)
  } while (rest > 0)
  return out.padStart(width, '0')
}

function checksum(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH)
}

export function generateApiToken(): string {
  const random = randomString(BASE62, RANDOM_LENGTH)
  return `${API_TOKEN_PREFIX}${random}${checksum(random)}`
}

/** True when the token has the right shape and checksum — checked before any database lookup. */
export function isWellFormedApiToken(token: string): boolean {
  if (!SHAPE.test(token)) return false
  const random = token.slice(API_TOKEN_PREFIX.length, API_TOKEN_PREFIX.length + RANDOM_LENGTH)
  return token.slice(API_TOKEN_PREFIX.length + RANDOM_LENGTH) === checksum(random)
}

/**
 * The first 10 characters (`sb_` + 7): enough to recognise a token in a list, useless to use it.
 */
export function apiTokenPrefix(token: string): string {
  return token.slice(0, 10)
}

/** Tokens are stored as SHA-256 only: a copy of the database does not hold usable credentials. */
export function hashApiToken(token: string): string {
  return sha256Hex(token)
}
