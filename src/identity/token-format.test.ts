import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { apiTokenPrefix, generateApiToken, isWellFormedApiToken, toBase62 } from './token-format.js'

describe('API token format (docs/API.md#personal-api-tokens)', () => {
  it('is sb_ + 32 base62 + 6 base62 characters of CRC-32 over the 32', () => {
    for (let i = 0; i < 50; i++) {
      const token = generateApiToken()
      expect(token).toMatch(/^sb_[0-9A-Za-z]{38}$/)
      expect(token).toHaveLength(41)
      const random = token.slice(3, 35)
      // Decimal, to compare through an independent base conversion
      const expected = crc32(random).toString()
      let value = 0
      for (const char of token.slice(35))
        value =
          value * 62 +
          '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.indexOf(char)
      expect(String(value)).toBe(expected)
      expect(isWellFormedApiToken(token)).toBe(true)
    }
  })

  it('encodes in base62, most significant digit first, zero-padded', () => {
    expect(toBase62(0, 6)).toBe('000000')
    expect(toBase62(61, 6)).toBe('00000z')
    expect(toBase62(62, 6)).toBe('000010')
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3')
  })

  it('rejects a wrong checksum, a wrong shape and other vendors’ shapes', () => {
    const token = generateApiToken()
    const flipped = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11)
    expect(isWellFormedApiToken(flipped)).toBe(false)
    expect(isWellFormedApiToken(token.slice(0, -1))).toBe(false)
    expect(isWellFormedApiToken(`${token}x`)).toBe(false)
    expect(isWellFormedApiToken(token.replace('sb_', 'ghp_'))).toBe(false)
    expect(isWellFormedApiToken(`sb_${'-'.repeat(38)}`)).toBe(false)
  })

  it('has a 10-character prefix for recognition', () => {
    const token = generateApiToken()
    expect(apiTokenPrefix(token)).toBe(token.slice(0, 10))
    expect(apiTokenPrefix(token)).toMatch(/^sb_[0-9A-Za-z]{7}$/)
  })
})
