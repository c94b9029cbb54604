import { describe, expect, it } from 'vitest'
import { totpAt } from './helpers/rfc6238.js'

describe('the test suite’s own RFC 6238 implementation', () => {
  // RFC 6238 Appendix B, SHA-1 rows: the 20-byte ASCII seed "12345678901234567890", 8 digits.
  const seed = Buffer.from('12345678901234567890', 'ascii')
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ]
  for (const [time, expected] of vectors) {
    it(`matches the RFC at T=${time}`, () => {
      expect(totpAt(seed, time, 8)).toBe(expected)
    })
  }

  it('gives the 6-digit form as the low six digits', () => {
    expect(totpAt(seed, 59, 6)).toBe('287082')
  })
})
