/**
 * PostgreSQL: an import of 1,000 links or more leaves the planner's statistics of the tables it
 * wrote in bulk current — links, so the next import reads an owner's links by URL through the
 * owner's URL index instead of walking all of them (docs/decisions/0062-an-owners-links-by-url.md),
 * and their tags, so a Links page reads its tags as they are
 * (docs/decisions/0070-planner-statistics-kept-by-the-service.md); a smaller one leaves them to
 * autovacuum.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { createSignedInUser, type SignedIn } from '../../../../test/helpers/factories.js'
import { importJsonLinks } from '../../../../test/helpers/links.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let user: SignedIn

beforeAll(async () => {
  user = await createSignedInUser(t)
  // Only the service's own ANALYZE may change the statistics while the test watches them.
  for (const table of ['links', 'link_tags', 'tags'])
    await sql`alter table ${sql.id(table)} set (autovacuum_enabled = false)`.execute(t.deps.db)
})

/** What the statistics say links holds: -1 (PostgreSQL 14 on) before any ANALYZE. */
async function estimatedLinks(): Promise<number> {
  const { rows } = await sql<{ reltuples: number }>`
    select reltuples from pg_class where oid = 'links'::regclass`.execute(t.deps.db)
  return Number(rows[0]!.reltuples)
}

async function importLinks(count: number, site: string): Promise<number> {
  const links = Array.from({ length: count }, (_, i) => ({ url: `https://${site}.example/${i}` }))
  return (await importJsonLinks(t, user.token, links)).imported
}

describe('the statistics of links after an import', () => {
  it('are left to autovacuum after a small import, and read afresh after one of 1,000', async () => {
    const before = await estimatedLinks()
    expect(await importLinks(999, 'small')).toBe(999)
    expect(await estimatedLinks()).toBe(before)
    expect(await importLinks(1000, 'bulk')).toBe(1000)
    expect(await estimatedLinks()).toBe(1999)
  })

  it("are read afresh for the links' tags and the tags' counts too", async () => {
    const lastAnalyzed = async () => {
      const { rows } = await sql<{ name: string; at: string | null }>`
        select relname as name, last_analyze::text as at from pg_stat_user_tables
        where schemaname = current_schema()
          and relname in ('link_tags', 'tags', 'tag_link_counts')`.execute(t.deps.db)
      return Object.fromEntries(rows.map((row) => [row.name, row.at]))
    }
    const before = await lastAnalyzed()
    const links = Array.from({ length: 1000 }, (_, i) => ({
      url: `https://tagged.example/${i}`,
      tags: [`folder-${i % 10}`],
    }))
    expect((await importJsonLinks(t, user.token, links)).imported).toBe(1000)
    const after = await lastAnalyzed()
    for (const table of ['link_tags', 'tags', 'tag_link_counts']) {
      expect(after[table]).not.toBeNull()
      expect(after[table]).not.toBe(before[table])
    }
  })
})
