/**
 * Migration 0123_link_search_short_terms on SQLite: every link already indexed is indexed again
 * with its columns padded, so that a term of two characters at the end of a title is found from
 * the trigram index's vocabulary; down takes the padding and the vocabulary away again.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { down, up } from '../../migrations/0123_link_search_short_terms.js'
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

/** How many of the index's trigrams hold the padding (U+0001), as a vocabulary of its own reads. */
async function paddedTrigrams(): Promise<number> {
  await sql`create virtual table temp.trigrams using fts5vocab(main, links_fts, 'row')`.execute(
    t.deps.db,
  )
  try {
    const { rows } = await sql<{ n: number }>`select count(*) as n from temp.trigrams
      where instr(term, char(1)) > 0`.execute(t.deps.db)
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
