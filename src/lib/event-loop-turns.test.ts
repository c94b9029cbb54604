import { describe, expect, it } from 'vitest'
import { joinedInParts } from './event-loop-turns.js'

async function partsOf(pieces: string[], separator: string, size: number): Promise<string[]> {
  const parts: string[] = []
  for await (const part of joinedInParts(pieces, separator, size)) parts.push(part)
  return parts
}

describe('joinedInParts', () => {
  it('joins the pieces as join() would, in parts of the given size', async () => {
    const pieces = Array.from({ length: 7 }, (_, i) => `p${i}`)
    for (const size of [1, 2, 3, 7, 8]) {
      const parts = await partsOf(pieces, ',', size)
      expect(parts.join('')).toBe(pieces.join(','))
      expect(parts).toHaveLength(Math.ceil(pieces.length / size))
    }
    expect(await partsOf([], '\n', 3)).toEqual([])
    expect((await partsOf(['a', '', ''], '\n', 2)).join('')).toBe('a\n\n')
  })

  it('makes each piece only when its part is read, a turn of the event loop after each part', async () => {
    const made: number[] = []
    function* pieces() {
      for (let i = 0; i < 4; i++) {
        made.push(i)
        yield String(i)
      }
    }
    const parts = joinedInParts(pieces(), '', 2)
    expect(made).toEqual([])
    expect((await parts.next()).value).toBe('01')
    expect(made).toEqual([0, 1])
    let turned = false
    setImmediate(() => (turned = true))
    expect((await parts.next()).value).toBe('23')
    expect(turned).toBe(true)
  })
})
