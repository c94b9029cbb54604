/**
 * PostgreSQL: an import of 1,000 links or more answers with the planner's statistics of the tables
 * it wrote in bulk — the links, their tags and the tags' links — read afresh.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../../test/helpers/factories.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

async function lastAnalyzed(): Promise<Record<string, string | null>> {
  const { rows } = await sql<{ name: string; at: string | null }>`
    select relname as name, last_analyze::text as at from pg_stat_user_tables
    where schemaname = current_schema() and relname in ('links', 'link_tags', 'tags')
    order by relname`.execute(t.deps.db)
  return Object.fromEntries(rows.map((row) => [row.name, row.at]))
}

describe('an import of many links on PostgreSQL', () => {
  it('analyzes links, link_tags and tags before it answers', async () => {
    const before = await lastAnalyzed()
    const user = await createSignedInUser(t)
    const links = Array.from({ length: 1000 }, (_, i) => ({
      url: `https://statistics.example/${i}`,
      title: `Page ${i}`,
      tags: [`folder-${i % 10}`],
    }))
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=json',
      headers: { ...bearer(user.token), 'content-type': 'application/octet-stream' },
      payload: JSON.stringify({ format: 'switchboard-links', version: 1, links }),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().imported).toBe(1000)
    const after = await lastAnalyzed()
    for (const table of ['links', 'link_tags', 'tags']) {
      expect(after[table]).not.toBeNull()
      expect(after[table]).not.toBe(before[table])
    }
  })
})
