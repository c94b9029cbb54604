/**
 * Hashing, comparison and authenticated encryption helpers. Framework-free and key-agnostic:
 * callers pass the keys they were given through deps.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

// crypto.hash is one call into OpenSSL; createHash().update().digest() is three, and an object
// (it hashes every API token on every request; docs/decisions/0013-request-path.md).
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex')
}

export function hmacBase64Url(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url')
}

/**
 * Constant-time string equality: comparing fixed-length digests means the time taken reveals
 * neither how many leading characters match nor the expected length.
 */
export function safeEqual(a: string, b: string): boolean {
  const left = hash('sha256', a, 'buffer')
  const right = hash('sha256', b, 'buffer')
  return timingSafeEqual(left, right)
}

/** Derives an independent 32-byte key for one purpose from a master secret (RFC 5869). */
export function deriveKey(secret: string | Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `switchboard:${purpose}`, 32))
}

const CIPHER_VERSION = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

export class DecryptionError extends Error {
  constructor() {
    super('ciphertext is malformed or was not produced with this key')
    this.name = 'DecryptionError'
  }
}

/**
 * AES-256-GCM with a random 96-bit IV. Output: "v1.<base64url(iv ‖ ciphertext ‖ tag)>"; the version
 * prefix lets a later key or algorithm coexist with rows written today. `context` is bound as
 * additional authenticated data, so a ciphertext copied to another row or column fails to open.
 */
export function encrypt(key: Buffer, plaintext: string, context = ''): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${CIPHER_VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`
}

/** Opens what encrypt() produced; anything else, or anything altered, throws DecryptionError. */
export function decrypt(key: Buffer, ciphertext: string, context = ''): string {
  const [version, payload] = ciphertext.split('.', 2)
  if (version !== CIPHER_VERSION || payload === undefined) throw new DecryptionError()
  const raw = Buffer.from(payload, 'base64url')
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError()
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(context))
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8')
  } catch {
    throw new DecryptionError()
  }
}
