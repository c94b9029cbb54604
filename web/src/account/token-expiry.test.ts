import { describe, expect, it } from 'vitest'
import { relativeParts } from '../i18n/i18n'
import { expiresSoon } from './token-expiry'

const DAY = 86_400_000
const at = (ms: number) => new Date(ms).toISOString()

describe('a token expiring soon', () => {
  it('is not said of a 7-day token on its first day, but is near its end', () => {
    const created = Date.parse('2026-12-01T10:00:00Z')
    const token = { created_at: at(created), expires_at: at(created + 7 * DAY) }
    expect(expiresSoon(token, created + 60_000)).toBe(false)
    expect(expiresSoon(token, created + 6 * DAY)).toBe(true)
  })

  it('is said of a 90-day token in its last week, and never of one without expiry', () => {
    const created = Date.parse('2026-09-01T10:00:00Z')
    const token = { created_at: at(created), expires_at: at(created + 90 * DAY) }
    expect(expiresSoon(token, created + 80 * DAY)).toBe(false)
    expect(expiresSoon(token, created + 84 * DAY)).toBe(true)
    expect(expiresSoon({ created_at: at(created), expires_at: null }, created)).toBe(false)
  })
})

describe('relative times', () => {
  it('say 30 days as days, not weeks or a month', () => {
    expect(relativeParts(30 * 86_400 - 5)).toEqual([30, 'day'])
    expect(relativeParts(7 * 86_400)).toEqual([7, 'day'])
    expect(relativeParts(-3 * 3600)).toEqual([-3, 'hour'])
    expect(relativeParts(90 * 86_400)).toEqual([3, 'month'])
    expect(relativeParts(10)).toEqual([0, 'second'])
  })
})
