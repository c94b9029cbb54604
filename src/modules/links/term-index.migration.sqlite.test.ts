/**
 * Migrations 0123_link_search_short_terms and 0125_link_search_one_character_terms on SQLite:
 * every link already indexed is indexed again with its columns padded, once and then twice, so
 * that a term of two characters and then of one at the end of a title is found from the trigram
 * index's vocabulary; down takes the padding (and the vocabulary) away again.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { down, up } from '../../migrations/0123_link_search_short_terms.js'
import * as oneCharacter from '../../migrations/0125_link_search_one_character_terms.js'
import { indexedTerm } from './term-index.repo.js'

const t = useTestApp()

/** The links the index finds for the term of fewer than three characters. */
async function indexedLinks(q: string): Promise<string[]> {
  const indexed = await indexedTerm(t.deps.db, q)
  if (indexed === null || indexed.query === null) return []
  const { rows } = await sql<{ link_id: string }>`select link_id from link_search_rows
    where id in (select rowid from links_fts where links_fts match ${indexed.query})
    order by link_id`.execute(t.deps.db)
  return rows.map((row) => row.link_id)
}

/**
 * How many of the index's trigrams hold the padding (U+0001) — `twice`: two of it — as a vocabulary
 * of its own reads.
 */
async function paddedTrigrams(twice = false): Promise<number> {
  const padding = twice ? sql`char(1, 1)` : sql`char(1)`
  await sql`create virtual table temp.trigrams using fts5vocab(main, links_fts, 'row')`.execute(
    t.deps.db,
  )
  try {
    const { rows } = await sql<{ n: number }>`select count(*) as n from temp.trigrams
      where instr(term, ${padding}) > 0`.execute(t.deps.db)
    return rows[0]!.n
  } finally {
    await sql`drop table temp.trigrams`.execute(t.deps.db)
  }
}

describe('migration 0123_link_search_short_terms', () => {
  it('indexes the links again with their columns padded; down removes the padding', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    const person = await createSignedInUser(t)
    const before = await createLink(t, person.token, { url: 'https://a.example/', title: 'Iraqu' })
    expect(await indexedLinks('qu')).toEqual([before.id])

    await down(db, 'sqlite')
    expect(await paddedTrigrams()).toBe(0)
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master
      where name = 'links_fts_terms'`.execute(t.deps.db)
    expect(rows[0]!.n).toBe(0)
    const unpadded = await createLink(t, person.token, { url: 'https://b.example/', title: 'Uqu' })

    await up(db, 'sqlite')
    expect(await paddedTrigrams()).toBeGreaterThan(0)
    expect(await indexedLinks('qu')).toEqual([before.id, unpadded.id].sort())
    const after = await createLink(t, person.token, { url: 'https://c.example/', slug: 'qu' })
    expect(await indexedLinks('qu')).toEqual([before.id, unpadded.id, after.id].sort())
  })
})

describe('migration 0125_link_search_one_character_terms', () => {
  it('indexes the links again with two of the padding; down leaves one', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    // The case above leaves the index as 0123 made it.
    await oneCharacter.up(db, 'sqlite')
    const person = await createSignedInUser(t)
    const before = await createLink(t, person.token, { url: 'https://d.example/', title: 'Route7' })
    expect(await indexedLinks('7')).toEqual([before.id])

    await oneCharacter.down(db, 'sqlite')
    expect(await paddedTrigrams(true)).toBe(0)
    expect(await paddedTrigrams()).toBeGreaterThan(0)
    // "7" ends the title: with one of the padding after it, it begins no trigram.
    expect(await indexedLinks('7')).toEqual([])
    expect(await indexedLinks('e7')).toEqual([before.id])
    const single = await createLink(t, person.token, { url: 'https://e.example/', slug: '7' })

    await oneCharacter.up(db, 'sqlite')
    expect(await paddedTrigrams(true)).toBeGreaterThan(0)
    expect(await indexedLinks('7')).toEqual([before.id, single.id].sort())
    expect(await indexedLinks('e7')).toEqual([before.id])
  })
})
