/**
 * Migration 0124 on PostgreSQL: the index of the pairs of neighbouring characters of each link's
 * searched text, and the function that lists them — characters, not bytes, so a letter beyond
 * ASCII or a CJK character is one — and down, which takes both away.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { down, up } from '../../migrations/0124_link_search_pairs.js'

const t = useTestApp()

async function pairsIndexes(): Promise<string[]> {
  const found = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = current_schema() and tablename = 'links' and indexname like '%pairs%'`.execute(
    t.deps.db,
  )
  return found.rows.map((row) => row.indexname)
}

async function pairsOf(text: string): Promise<string[]> {
  const found = await sql<{
    pairs: string[]
  }>`select link_search_pairs(${text}::text) as pairs`.execute(t.deps.db)
  return found.rows[0]!.pairs
}

describe('migration 0124 (the index of character pairs)', () => {
  it('lists each pair of neighbouring characters; down takes the index and the function', async () => {
    expect(await pairsIndexes()).toEqual(['links_search_pairs_idx'])
    expect(await pairsOf('aé東\nx')).toEqual(['aé', 'é東', '東\n', '\nx'])
    expect(await pairsOf('abab')).toEqual(['ab', 'ba', 'ab'])
    expect(await pairsOf('a')).toEqual([])
    expect(await pairsOf('')).toEqual([])
    const db = t.deps.db as unknown as Kysely<unknown>
    await down(db, 'postgres')
    expect(await pairsIndexes()).toEqual([])
    await expect(pairsOf('ab')).rejects.toThrow(/link_search_pairs/)
    await up(db, 'postgres')
    expect(await pairsIndexes()).toEqual(['links_search_pairs_idx'])
    expect(await pairsOf('ab')).toEqual(['ab'])
  })
})
