/**
 * Migration 0120 on PostgreSQL: the links written before it, with a title or none, are found
 * through their stored lower-cased copy, which follows every later change of the title, URL or
 * slug; one trigram index replaces the three per column, and down gives them back.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { down, up } from '../../migrations/0120_link_search_stored_lower.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

async function searchIndexes(): Promise<string[]> {
  const found = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = current_schema() and tablename = 'links' and indexname like '%trgm%'
    order by indexname`.execute(t.deps.db)
  return found.rows.map((row) => row.indexname)
}

describe('migration 0120 (the links search over a stored lower-cased copy)', () => {
  it('finds the links written before it, follows their changes; down gives the indexes back', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    const user = await createSignedInUser(t)
    await down(db, 'postgres')
    expect(await searchIndexes()).toEqual([
      'links_slug_trgm_idx',
      'links_title_trgm_idx',
      'links_url_trgm_idx',
    ])
    const link = await createLink(t, user.token, {
      url: 'https://Wombat.example/Burrow',
      title: 'Ärger im Büro',
      slug: 'Night-Shift',
    })
    const untitled = await createLink(t, user.token, { url: 'https://untitled.example/' })
    await up(db, 'postgres')
    expect(await searchIndexes()).toEqual(['links_search_lower_trgm_idx'])

    const search = async (q: string) => {
      const page = await t.app.inject({
        method: 'GET',
        url: `/api/links?q=${encodeURIComponent(q)}`,
        headers: bearer(user.token),
      })
      expect(page.statusCode, page.body).toBe(200)
      return page.json<{ items: Array<{ id: string }> }>().items.map((item) => item.id)
    }
    for (const q of ['ärger', 'BÜRO', 'wombat.EXAMPLE/burrow', 'night-shift'])
      expect(await search(q), q).toEqual([link.id])
    expect(await search('bürohttps')).toEqual([])
    expect(await search('UNTITLED')).toEqual([untitled.id])

    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${link.id}`,
      headers: bearer(user.token),
      payload: { title: 'Quiet hours', slug: null },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(await search('quiet HOURS')).toEqual([link.id])
    expect(await search('ärger')).toEqual([])
    expect(await search('night-shift')).toEqual([])
  })
})
