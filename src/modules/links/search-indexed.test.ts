/**
 * The Links search at a company's size: 100,000 links (the person's 20,000, their organization's
 * 20,000, strangers' 60,000), a word in 1 of 400 titles. From 3 characters on, GET /api/links?q=
 * reads the search's candidates from trigrams (PostgreSQL pg_trgm, SQLite FTS5), not every visible
 * link; shorter terms and characters with a meaning to LIKE or FTS5 still find what they contain.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bareUserRow,
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import {
  analyzeIfPostgres,
  insertLinksInBulk,
  postgresPlanOf,
  sqlitePlanOf,
  statementsOf,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const WORD = 'Quokka'

let user: TestUser & SignedIn
const special: Record<string, string> = {}

beforeAll(async () => {
  user = await createSignedInUser(t)
  const owner = await createSignedInUser(t)
  const org = await createOrganization(t, owner.token)
  await addOrgMember(t, owner.token, org.id, user, 'member')
  const now = new Date().toISOString()
  const strangers = ['s1', 's2', 's3'].map((id) => bareUserRow(`stranger-${id}`, now))
  await t.deps.db.insertInto('users').values(strangers).execute()
  const word = { every: 400, text: WORD }
  await insertLinksInBulk(t, {
    prefix: 'mine',
    count: 20_000,
    owner: { userId: user.user.id },
    word,
  })
  await insertLinksInBulk(t, {
    prefix: 'team',
    count: 20_000,
    owner: { organizationId: org.id },
    word,
  })
  for (const stranger of strangers)
    await insertLinksInBulk(t, {
      prefix: stranger.id,
      count: 20_000,
      owner: { userId: stranger.id },
      word,
    })
  const titles = ['Zq!', '100% sure', 'say "hi" now', 'Ärger_im Büro']
  for (const [index, title] of titles.entries()) {
    const link = await createLink(t, user.token, { url: `https://special.example/${index}`, title })
    special[title] = link.id
  }
  await analyzeIfPostgres(t)
}, 300_000)

async function search(q: string, cursor?: string) {
  const query = new URLSearchParams({ q, limit: '50', ...(cursor !== undefined && { cursor }) })
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?${query.toString()}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ items: { id: string; title: string }[]; next_cursor: string | null }>()
}

describe('GET /api/links?q= with 100,000 links', () => {
  it('reads a word’s matches through the trigram index and lists exactly the visible ones', async () => {
    const statements = await statementsOf(/from "links".* like /s, () => search(WORD.toLowerCase()))
    expect(statements).toHaveLength(1)
    const statement = statements[0]!
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement)
      expect(plan.text, plan.text).toMatch(/links_title_trgm_idx/)
      expect(plan.seqScans).not.toContain('links')
      // The owners' indexes would read the 40,000 visible links: over 1,000 buffers.
      expect(plan.buffers, plan.text).toBeLessThan(400)
    } else {
      const plan = await sqlitePlanOf(t, statement)
      expect(plan.join('\n')).toMatch(/SCAN links_fts VIRTUAL TABLE INDEX/)
      expect(plan.filter((step) => /^SCAN links\b/.test(step))).toEqual([])
    }
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await search(WORD.toLowerCase(), cursor)
      for (const item of page.items) {
        expect(item.title).toContain(WORD)
        seen.push(item.id)
      }
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    const expected = [400, 800, 1200].flatMap((i) => [`mine-${i}`, `team-${i}`])
    expect(seen).toHaveLength(100)
    expect(new Set(seen).size).toBe(100)
    expect(seen.slice(0, 6).sort()).toEqual(expected.sort())
  })

  it('finds terms of 1 and 2 characters, LIKE’s wildcards, quotes and non-ASCII letters', async () => {
    const ids = async (q: string) => (await search(q)).items.map((item) => item.id)
    expect(await ids('zQ')).toEqual([special['Zq!']])
    expect(await ids('%')).toEqual([special['100% sure']])
    expect(await ids('0% s')).toEqual([special['100% sure']])
    expect(await ids('"hi"')).toEqual([special['say "hi" now']])
    expect(await ids('r_im')).toEqual([special['Ärger_im Büro']])
    expect(await ids('Büro')).toEqual([special['Ärger_im Büro']])
    expect((await ids('quokka 1600')).sort()).toEqual([
      'mine-1600',
      'mine-16000',
      'team-1600',
      'team-16000',
    ])
    expect(await ids('nowhere at all')).toEqual([])
  })
})
