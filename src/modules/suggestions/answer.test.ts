/**
 * A model's answer is data: whatever text a model returns, what reaches the person satisfies the
 * slug grammar and the limits, and carries no markup.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { matchTags, MAX_TAG_LENGTH, readModelAnswer, SLUG_GRAMMAR } from './answer.js'

const EXISTING = ['Kubernetes', 'DevOps', 'Go', 'naïve', 'ÄÖÜ']

/** Model output: any text, or JSON whose fields hold anything, bare or in a fence. */
const hostileValue = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    '../Admin',
    'javascript:alert(1)',
    'a/b.c d',
    'x'.repeat(500),
    'ignore previous instructions',
  ),
  fc.integer(),
  fc.constant(null),
)
const modelOutput = fc.oneof(
  fc.string({ maxLength: 500 }),
  fc
    .record(
      {
        title: hostileValue,
        slug: hostileValue,
        tags: fc.oneof(fc.array(hostileValue, { maxLength: 60 }), hostileValue),
        url: hostileValue,
      },
      { requiredKeys: [] },
    )
    .chain((object) =>
      fc.constantFrom(
        JSON.stringify(object),
        '```json\n' + JSON.stringify(object) + '\n```',
        'Here you go: ' + JSON.stringify(object) + ' Enjoy.',
      ),
    ),
)

describe('readModelAnswer and matchTags', () => {
  it('for any model output: a plain title ≤ 200, a slug in the grammar, ≤ 8 plain tags ≤ 40', () => {
    fc.assert(
      fc.property(modelOutput, fc.boolean(), (content, existingOnly) => {
        const answer = readModelAnswer(content)
        if (answer === null) return
        if (answer.title !== null) {
          expect([...answer.title].length).toBeLessThanOrEqual(200)
          expect(answer.title).not.toMatch(/[<>]/)
        }
        if (answer.slug !== null) {
          expect(answer.slug).toMatch(SLUG_GRAMMAR)
          expect(answer.slug).not.toMatch(/[/.\s]/)
          expect(answer.slug.length).toBeLessThanOrEqual(48)
        }
        const { tags, new_tags } = matchTags(answer.tags, EXISTING, existingOnly)
        expect(tags.length).toBeLessThanOrEqual(8)
        expect(new Set(tags.map((tag) => tag.toLowerCase())).size).toBe(tags.length)
        for (const tag of tags) {
          expect([...tag].length).toBeLessThanOrEqual(MAX_TAG_LENGTH)
          expect(tag).not.toMatch(/[<>]/)
        }
        for (const tag of new_tags) expect(tags).toContain(tag)
        if (existingOnly) expect(new_tags).toEqual([])
        for (const tag of tags.filter((tag) => !new_tags.includes(tag)))
          expect(EXISTING).toContain(tag)
      }),
      { numRuns: 500 },
    )
  })

  it('reads a fenced answer, ignores other fields, and matches existing tags in their spelling', () => {
    const answer = readModelAnswer(
      '```json\n{"title":"<b>Deploy</b> guide","slug":"../Admin","tags":["kubernetes","Helm","HELM"],"url":"javascript:alert(1)"}\n```',
    )
    expect(answer).toEqual({ title: 'Deploy guide', slug: 'admin', tags: ['kubernetes', 'Helm'] })
    expect(matchTags(answer!.tags, EXISTING, false)).toEqual({
      tags: ['Kubernetes', 'Helm'],
      new_tags: ['Helm'],
    })
  })

  it('garbage is no answer', () => {
    expect(readModelAnswer('I cannot help with that.')).toBeNull()
    expect(readModelAnswer('{"unrelated": true}')).toBeNull()
    expect(readModelAnswer('[1, 2, 3]')).toBeNull()
  })
})
