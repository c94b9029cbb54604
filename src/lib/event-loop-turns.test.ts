import { describe, expect, it } from 'vitest'
import { joinedInParts, withTurns } from './event-loop-turns.js'

const partsOf = (pieces: string[], separator: string, size: number): string[] => [
  ...joinedInParts(pieces, separator, size),
]

describe('joinedInParts', () => {
  it('joins the pieces as join() would, in parts of the given size', () => {
    const pieces = Array.from({ length: 7 }, (_, i) => `p${i}`)
    for (const size of [1, 2, 3, 7, 8]) {
      const parts = partsOf(pieces, ',', size)
      expect(parts.join('')).toBe(pieces.join(','))
      expect(parts).toHaveLength(Math.ceil(pieces.length / size))
    }
    expect(partsOf([], '\n', 3)).toEqual([])
    expect(partsOf(['a', '', ''], '\n', 2).join('')).toBe('a\n\n')
  })

  it('with withTurns, makes each piece only when its part is read, a turn after each part', async () => {
    const made: number[] = []
    function* pieces() {
      for (let i = 0; i < 4; i++) {
        made.push(i)
        yield String(i)
      }
    }
    const parts = withTurns(joinedInParts(pieces(), '', 2))
    expect(made).toEqual([])
    expect((await parts.next()).value).toBe('01')
    expect(made).toEqual([0, 1])
    let turned = false
    setImmediate(() => (turned = true))
    expect((await parts.next()).value).toBe('23')
    expect(turned).toBe(true)
  })
})
