import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DecryptionError, decrypt, deriveKey, encrypt, safeEqual, sha256Hex } from './crypto.js'

const key = randomBytes(32)

describe('AES-256-GCM encryption at rest', () => {
  it('round-trips and never produces the same ciphertext twice', () => {
    const a = encrypt(key, 'JBSWY3DPEHPK3PXP', 'users.totp_secret:u1')
    const b = encrypt(key, 'JBSWY3DPEHPK3PXP', 'users.totp_secret:u1')
    expect(a).not.toBe(b)
    expect(a.startsWith('v1.')).toBe(true)
    expect(a).not.toContain('JBSWY3DPEHPK3PXP')
    expect(decrypt(key, a, 'users.totp_secret:u1')).toBe('JBSWY3DPEHPK3PXP')
  })

  it('refuses a tampered ciphertext instead of returning anything', () => {
    const sealed = encrypt(key, 'secret value')
    const raw = Buffer.from(sealed.slice(3), 'base64url')
    raw[14] = raw[14]! ^ 0x01
    expect(() => decrypt(key, `v1.${raw.toString('base64url')}`)).toThrow(DecryptionError)
  })

  it('refuses the wrong key, the wrong context, plaintext and unknown versions', () => {
    const sealed = encrypt(key, 'secret value', 'row-1')
    expect(() => decrypt(randomBytes(32), sealed, 'row-1')).toThrow(DecryptionError)
    expect(() => decrypt(key, sealed, 'row-2')).toThrow(DecryptionError)
    expect(() => decrypt(key, 'secret value')).toThrow(DecryptionError)
    expect(() => decrypt(key, `v2.${sealed.slice(3)}`)).toThrow(DecryptionError)
    expect(() => decrypt(key, 'v1.AAAA')).toThrow(DecryptionError)
  })
})

describe('helpers', () => {
  it('compares strings in constant time, correctly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true)
    expect(safeEqual('abc', 'abd')).toBe(false)
    expect(safeEqual('abc', 'abcd')).toBe(false)
    expect(safeEqual('', '')).toBe(true)
  })

  it('derives independent keys per purpose', () => {
    expect(deriveKey('master', 'a')).toHaveLength(32)
    expect(deriveKey('master', 'a').equals(deriveKey('master', 'a'))).toBe(true)
    expect(deriveKey('master', 'a').equals(deriveKey('master', 'b'))).toBe(false)
  })

  it('hashes with SHA-256', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })
})
