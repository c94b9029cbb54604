/**
 * The timestamptz parser of the pg pool: text rearranged for UTC, Date for any other zone, one
 * result either way.
 */
import { describe, expect, it } from 'vitest'
import { timestamptzToIso } from './postgres.js'

const throughDate = (text: string) =>
  new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString()

describe('timestamptzToIso', () => {
  it('writes what Date#toISOString writes, for every fraction PostgreSQL prints in UTC', () => {
    for (const text of [
      '2026-11-21 10:00:00+00',
      '2026-11-21 10:00:00.1+00',
      '2026-11-21 10:00:00.12+00',
      '2026-11-21 10:00:00.123+00',
      '2026-11-21 10:00:00.1234+00',
      '2026-11-21 23:59:59.999999+00',
      '2024-02-29 00:00:00.000001+00',
    ]) {
      expect(timestamptzToIso(text)).toBe(throughDate(text))
    }
    expect(timestamptzToIso('2026-11-21 10:00:00.5+00')).toBe('2026-11-21T10:00:00.500Z')
  })

  it('converts a session in another zone to UTC', () => {
    expect(timestamptzToIso('2026-11-21 12:00:00.25+02')).toBe('2026-11-21T10:00:00.250Z')
    expect(timestamptzToIso('2026-11-21 15:30:00+05:30')).toBe('2026-11-21T10:00:00.000Z')
    expect(timestamptzToIso('2026-11-21 05:00:00-05')).toBe('2026-11-21T10:00:00.000Z')
  })
})
