/**
 * A leaf's text is written field by field (leaf.ts): held here to the canonicalizer's own output
 * (the `canonicalize` package, RFC 8785) over any event, including values no stored row has.
 */
import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LEAF_COLUMNS, leafText, type LeafEvent } from './leaf.js'

/** What the canonicalizer makes of exactly the leaf's fields, or the error it throws. */
function expected(event: LeafEvent): string {
  const picked: Record<string, unknown> = {}
  for (const column of LEAF_COLUMNS) picked[column] = event[column]
  try {
    return canonicalize(picked)!
  } catch (error) {
    return `throws ${(error as Error).message}`
  }
}

function actual(event: LeafEvent): string {
  try {
    return leafText(event)
  } catch (error) {
    return `throws ${(error as Error).message}`
  }
}

/** Any UTF-16 code unit: lone surrogates too. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n))
const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 1, arbitrary: fc.string({ unit: codeUnit }) },
)
const scalar = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.double(), fc.boolean()) },
)
const metadata = fc.oneof(
  { weight: 9, arbitrary: fc.dictionary(text, fc.jsonValue()) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.constant(null), text) },
)
const events = fc.record({
  id: scalar,
  at: scalar,
  actor_id: scalar,
  actor_email: scalar,
  action: scalar,
  target_type: scalar,
  target_id: scalar,
  ip: scalar,
  user_agent: scalar,
  subject_user_id: scalar,
  metadata,
}) as fc.Arbitrary<LeafEvent>

describe('leafText', () => {
  it('is the canonical JSON of the leaf fields, as the canonicalizer writes it', () => {
    fc.assert(
      fc.property(events, (event) => {
        expect(actual(event)).toBe(expected(event))
      }),
      { numRuns: 5000 },
    )
  })

  it('writes a stored event in the fields’ sorted order', () => {
    const event: LeafEvent = {
      ...baseEvent(),
      actor_email: 'ä@example.com',
      action: 'team.update',
      target_type: 'team',
      target_id: 't1',
      user_agent: 'agent "x"',
      metadata: { z: 1, a: ['€', null] },
    }
    expect(leafText(event)).toBe(
      '{"action":"team.update","actor_email":"ä@example.com","actor_id":null,' +
        '"at":"2026-12-05T10:00:00.000Z","id":"e","ip":null,' +
        '"metadata":{"a":["€",null],"z":1},"subject_user_id":null,"target_id":"t1",' +
        '"target_type":"team","user_agent":"agent \\"x\\""}',
    )
  })

  it('refuses a lone surrogate as the canonicalizer does', () => {
    const event = { ...baseEvent(), user_agent: 'a\ud800b' }
    expect(() => leafText(event)).toThrow('Lone surrogate is not allowed')
  })
})

function baseEvent(): LeafEvent {
  return {
    id: 'e',
    at: '2026-12-05T10:00:00.000Z',
    actor_id: null,
    actor_email: null,
    action: 'user.login',
    target_type: null,
    target_id: null,
    ip: null,
    user_agent: null,
    subject_user_id: null,
    metadata: {},
  }
}
