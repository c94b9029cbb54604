/**
 * SQLite: the links' trigram index is merged after a large import, between requests, and searches
 * answer the same throughout. FTS5's own merging during writes (`automerge`) is switched off in
 * this file's database, so that the segments go down only when the merge after an import runs.
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { WRITE_PART } from './bookmarks/batches.js'
import { mergeSearchIndexStep } from './search-index.repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

beforeAll(async () => {
  await sql`insert into links_fts (links_fts, rank) values ('automerge', 0)`.execute(t.deps.db)
})

/**
 * The index's segments (b-trees). FTS5's shadow table `links_fts_idx` has a row per segment and
 * leaf page; its layout is SQLite's, read here only to count.
 */
async function segments(): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`select count(distinct segid) as n from links_fts_idx`.execute(t.deps.db)
  return rows[0]!.n
}

const importLinks = (user: SignedIn, file: number, count: number, dryRun = false) =>
  t.app.inject({
    method: 'POST',
    url: '/api/links/import',
    headers: bearer(user.token),
    payload: {
      format: 'json',
      dry_run: dryRun,
      content: JSON.stringify({
        format: 'switchboard-links',
        links: Array.from({ length: count }, (_, i) => ({
          url: `https://merge.example/${file}/${i}`,
          title: i % 100 === 0 ? `Wombat notes ${file}-${i}` : `Page ${i} of file ${file}`,
        })),
      }),
    },
  })

const searchTitles = async (user: SignedIn): Promise<string[]> =>
  (
    await t.app.inject({
      method: 'GET',
      url: '/api/links?q=wombat&limit=100',
      headers: bearer(user.token),
    })
  )
    .json<{ items: { title: string }[] }>()
    .items.map((link) => link.title)

/** Some turns of the event loop: time for a merge, had one been asked for, to run its steps. */
async function someTurns(): Promise<void> {
  for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve))
}

describe('the search index after an import', () => {
  it('is merged after a large import, until a step finds nothing left', async () => {
    const ada = await createSignedInUser(t)
    expect((await importLinks(ada, 1, WRITE_PART - 1)).json().imported).toBe(WRITE_PART - 1)
    await someTurns()
    const fragmented = await segments()
    expect(fragmented).toBeGreaterThanOrEqual(2)
    const found = await searchTitles(ada)
    expect(found).toHaveLength(10)

    expect((await importLinks(ada, 2, WRITE_PART)).json().imported).toBe(WRITE_PART)
    // The large import added segments; the merge between requests leaves fewer than before it.
    await vi.waitFor(async () => expect(await segments()).toBeLessThan(fragmented), {
      timeout: 10_000,
    })
    await vi.waitFor(async () => expect(await mergeSearchIndexStep(t.deps.db)).toBe(false))
    const after = await searchTitles(ada)
    expect(after).toHaveLength(20)
    expect(after).toEqual(expect.arrayContaining(found))
  })

  it('is merged after two large imports that end at once, both found by the search', async () => {
    const dee = await createSignedInUser(t)
    const answers = await Promise.all([
      importLinks(dee, 8, WRITE_PART),
      importLinks(dee, 9, WRITE_PART),
    ])
    expect(answers.map((answer) => answer.json().imported)).toEqual([WRITE_PART, WRITE_PART])
    const written = await segments()
    await vi.waitFor(async () => expect(await mergeSearchIndexStep(t.deps.db)).toBe(false), {
      timeout: 10_000,
    })
    // A finished merge leaves at most one segment per level: how many levels are left depends on
    // how the two imports' parts and the merge's steps interleaved, so it is not compared with
    // the count before the imports — only with the count when they ended.
    expect(await segments()).toBeLessThanOrEqual(written)
    expect(await searchTitles(dee)).toHaveLength(20)
  })

  it('is not merged after a small import or a dry run', async () => {
    const bo = await createSignedInUser(t)
    const before = await segments()
    await importLinks(bo, 3, WRITE_PART - 1)
    await someTurns()
    const afterSmall = await segments()
    expect(afterSmall).toBeGreaterThan(before)
    const dryRun = await importLinks(bo, 4, WRITE_PART, true)
    expect(dryRun.json()).toMatchObject({ dry_run: true, imported: WRITE_PART })
    await someTurns()
    expect(await segments()).toBe(afterSmall)
    // What was left is merged by steps, each reporting whether it merged.
    let steps = 0
    while (await mergeSearchIndexStep(t.deps.db)) steps++
    expect(steps).toBeGreaterThanOrEqual(1)
    expect(await segments()).toBeLessThan(afterSmall)
    expect(await searchTitles(bo)).toHaveLength(10)
  })
})
