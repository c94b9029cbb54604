/**
 * The database's frontier append (migration 0113, `audit_frontier_append`) against the service's
 * (lib/merkle.ts Frontier): from every size up to 70, appends of one to five leaves give the same
 * frontier, in the same text the service writes, so either may write the head and the other read
 * it.
 */
import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { Frontier } from '../../lib/merkle.js'
import { useTestApp } from '../../../test/helpers/app.js'

const t = useTestApp()

const leaf = (i: number) => createHash('sha256').update(`leaf ${i}`).digest()
const text = (frontier: Frontier) => JSON.stringify(frontier.hashes.map((h) => h.toString('hex')))

async function appendInDatabase(frontier: string, size: number, leaves: Buffer[]) {
  const { rows } = await sql<{ frontier: string }>`select audit_frontier_append(${frontier},
    ${size}, ${leaves.map((h) => h.toString('hex'))}) as "frontier"`.execute(t.deps.db)
  return rows[0]!.frontier
}

describe('audit_frontier_append', () => {
  it('gives the frontier lib/merkle.ts gives, for every size to 70 and appends of 1 to 5', async () => {
    const tree = Frontier.empty()
    let checked = 0
    while (tree.size < 70) {
      for (let count = 1; count <= 5; count++) {
        const leaves = Array.from({ length: count }, (_, i) => leaf(tree.size * 10 + i))
        const expected = new Frontier(tree.size, [...tree.hashes])
        for (const hash of leaves) expected.append(hash)
        expect(await appendInDatabase(text(tree), tree.size, leaves)).toBe(text(expected))
        checked++
      }
      tree.append(leaf(tree.size))
    }
    expect(checked).toBe(350)
  })

  it('leaves an empty append and an empty tree as they are', async () => {
    expect(await appendInDatabase('[]', 0, [])).toBe('[]')
    const one = Frontier.empty()
    one.append(leaf(1))
    expect(await appendInDatabase(text(one), 1, [])).toBe(text(one))
  })
})
