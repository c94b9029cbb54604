import { describe, expect, it } from 'vitest'
import { estimateStrength } from './password-strength'

describe('estimateStrength', () => {
  it('calls a password under 8 characters, or the email itself, too short', () => {
    expect(estimateStrength('')).toBe(0)
    expect(estimateStrength('Ab1!xyz')).toBe(0)
    expect(estimateStrength('ada@example.com', 'Ada@Example.com')).toBe(0)
  })

  it('discounts repeats and runs', () => {
    expect(estimateStrength('aaaaaaaaaaaa')).toBe(1)
    expect(estimateStrength('abcdefghijkl')).toBe(1)
    expect(estimateStrength('12345678')).toBe(1)
  })

  it('grows with length and kinds of characters', () => {
    const scores = [
      'kqzmwtpr',
      'kqzmwtprvb7x',
      'kqzm wtpr vb7x Lh2',
      'correct horse battery staple 42',
    ].map((p) => estimateStrength(p))
    expect(scores).toEqual([...scores].sort((a, b) => a - b))
    expect(scores[0]).toBeLessThanOrEqual(2)
    expect(scores.at(-1)).toBe(4)
  })
})
