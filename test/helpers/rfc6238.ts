/**
 * An independent RFC 6238 TOTP implementation for the tests — written from the RFC, not from the
 * library the service uses, and checked against the RFC's own test vectors (rfc6238.test.ts) — so
 * the suite computes codes the way any authenticator app would.
 */
import { createHmac } from 'node:crypto'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

export function base32Decode(text: string): Buffer {
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char)
    if (index < 0) throw new Error(`not base32: ${char}`)
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** RFC 4226 HOTP with RFC 6238's time counter; SHA-1 as the service uses. */
export function totpAt(key: Buffer, unixSeconds: number, digits = 6, period = 30): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / period)))
  const mac = createHmac('sha1', key).update(counter).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits
  return String(binary).padStart(digits, '0')
}

/** The code an authenticator app shows for a base32 secret at `date`. */
export function totpCode(secretBase32: string, date: Date, stepOffset = 0): string {
  return totpAt(base32Decode(secretBase32), date.getTime() / 1000 + stepOffset * 30)
}
