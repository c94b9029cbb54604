/**
 * The Links list's most-clicked order (`sort=clicks_30d`) at a company's size: 100,000 links (the
 * person's 20,000, their organization's 20,000, strangers' 60,000), every fifth of the person's
 * and their organization's clicked in the last 30 days, and strangers' links clicked more. A page
 * reads each owner's most clicked links from its (owner, recent_clicks, id) index — the first
 * page, one deep in the links never clicked, the links not pinned, a term in every title — instead
 * of summing the clicks of all 40,000 visible links; and each page is exactly the visible links
 * ordered by their clicks of the last 30 days (counted from the clicks per day), then newest id.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { encodeCursor } from '../../lib/pagination.js'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  analyzeIfPostgres,
  insertCompanyLinks,
  postgresGenericPlanOf,
  postgresPlanOf,
  sqlitePlanOf,
  statementsOf,
  type Statement,
} from '../../../test/helpers/query-plans.js'
import { addClicks, type DayClicks } from './recent-clicks.repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const DAY_MS = 86_400_000

let user: TestUser & SignedIn
let organizationId: string

const dayAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10)

beforeAll(async () => {
  ;({ member: user, organizationId } = await createOrganizationMember(t))
  await insertCompanyLinks(t, { userId: user.user.id, organizationId }, 'Quokka')
  // Every fifth visible link clicked on a few of the last 30 days, some also 31–60 days ago (not
  // counted); strangers' links clicked more, and never seen.
  const rows: DayClicks[] = []
  for (const prefix of ['mine', 'team', 'stranger-s1'])
    for (let n = 5; n <= 20_000; n += 5) {
      const base = prefix === 'stranger-s1' ? 1_000 : (n * 7) % 97
      rows.push({ link_id: `${prefix}-${n}`, day: dayAgo(n % 30), clicks: base + 1 })
      if (n % 3 === 0 && n % 30 !== 29)
        rows.push({ link_id: `${prefix}-${n}`, day: dayAgo(29), clicks: 2 })
      if (n % 4 === 0)
        rows.push({ link_id: `${prefix}-${n}`, day: dayAgo(30 + (n % 30)), clicks: 500 })
    }
  // Written as the redirects' counter writes them.
  for (let first = 0; first < rows.length; first += 2_000)
    await t.deps.db.transaction().execute((tx) => addClicks(tx, rows.slice(first, first + 2_000)))
  await analyzeIfPostgres(t)
}, 300_000)

interface Listed {
  id: string
  title: string
  clicks_30d: number
}

async function page(query: Record<string, string>) {
  const search = new URLSearchParams({ sort: 'clicks_30d', limit: '50', ...query })
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?${search.toString()}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ items: Listed[]; next_cursor: string | null }>()
}

/**
 * The person's visible links by their clicks since the window's first day, summed from the
 * clicks per day, then newest id: the reference the pages are compared with.
 */
async function visibleByClicks(): Promise<{ id: string; title: string; clicks: number }[]> {
  const visible = sql`links.user_id = ${user.user.id} or links.organization_id = ${organizationId}`
  const rows = await sql<{ id: string; title: string; clicks: number | string }>`
    select links.id, links.title, coalesce((select sum(clicks) from link_clicks
      where link_clicks.link_id = links.id and link_clicks.day >= ${dayAgo(29)}), 0) as clicks
    from links where ${visible}`.execute(t.deps.db)
  return rows.rows
    .map((row) => ({ id: row.id, title: row.title, clicks: Number(row.clicks) }))
    .sort((a, b) => b.clicks - a.clicks || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

/**
 * The statement reads each owner's most clicked links from its index, not every visible link; on
 * PostgreSQL planned for its values and, where it is compiled once (`generic`), for any values.
 */
async function expectPerOwner(
  statement: Statement,
  { generic, maxBuffers }: { generic: boolean; maxBuffers: number },
): Promise<void> {
  if (t.database.engine === 'postgres') {
    const plans = [await postgresPlanOf(t, statement)]
    if (generic) plans.push(await postgresGenericPlanOf(t, statement))
    for (const plan of plans) {
      expect(plan.seqScans).not.toContain('links')
      expect(plan.text).toMatch(/links_user_clicks_idx/)
      expect(plan.text).toMatch(/links_org_clicks_idx/)
      // Summing the clicks of the 40,000 visible links read tens of thousands of buffers.
      expect(plan.buffers, plan.text).toBeLessThan(maxBuffers)
    }
  } else {
    const plan = (await sqlitePlanOf(t, statement)).join('\n')
    expect(plan).not.toMatch(/MULTI-INDEX OR|SCAN links\b|SCAN link_clicks\b/)
    expect(plan).toMatch(/SEARCH links USING (COVERING )?INDEX links_user_clicks_idx/)
    expect(plan).toMatch(/SEARCH links USING (COVERING )?INDEX links_org_clicks_idx/)
  }
}

const idsAndClicks = (items: Listed[]) => items.map((item) => [item.id, item.clicks_30d])

describe('GET /api/links?sort=clicks_30d with 100,000 links', () => {
  it('reads the first page per owner, and it is the 50 most clicked visible links', async () => {
    const statements = await statementsOf(/from "links"/, () => page({}))
    await expectPerOwner(statements[0]!, { generic: true, maxBuffers: 300 })
    const expected = (await visibleByClicks()).slice(0, 50)
    expect(expected[0]!.clicks).toBeGreaterThan(expected[49]!.clicks)
    expect(idsAndClicks((await page({})).items)).toEqual(
      expected.map((row) => [row.id, row.clicks]),
    )
  })

  it('reads a page 30,000 links deep, among those never clicked, per owner by cursor', async () => {
    const all = await visibleByClicks()
    const last = all[29_999]!
    expect(last.clicks).toBe(0)
    const cursor = encodeCursor(['0', last.id])
    const statements = await statementsOf(/from "links"/, () => page({ cursor }))
    await expectPerOwner(statements[0]!, { generic: true, maxBuffers: 300 })
    const deep = await page({ cursor })
    expect(deep.items.map((item) => item.id)).toEqual(all.slice(30_000, 30_050).map((r) => r.id))
    expect(deep.next_cursor).not.toBeNull()
  })

  it('reads the links not pinned, and those holding a term in every title, per owner', async () => {
    const pinned = (await visibleByClicks())[1]!
    const pin = await t.app.inject({
      method: 'PUT',
      url: `/api/links/${pinned.id}/pin`,
      headers: bearer(user.token),
    })
    expect(pin.statusCode).toBe(204)
    for (const query of [
      { pinned: 'false' },
      { q: 'link' },
      { q: 'link', pinned: 'false' },
    ] as Record<string, string>[]) {
      const statements = await statementsOf(/from "links"/, () => page(query))
      // Each owner's links in the order of its index, each tested (SQLite) or filtered
      // (PostgreSQL, a statement planned for each request's values) until the page is full; each
      // one read is also looked for among the person's pins (some 320 buffers in all).
      await expectPerOwner(statements.at(-1)!, { generic: false, maxBuffers: 500 })
      const expected = (await visibleByClicks()).filter(
        (row) =>
          (query.pinned === undefined || row.id !== pinned.id) &&
          (query.q === undefined || row.title.toLowerCase().includes(query.q)),
      )
      expect(idsAndClicks((await page(query)).items)).toEqual(
        expected.slice(0, 50).map((row) => [row.id, row.clicks]),
      )
    }
  })

  it('lists a rare word’s links by their clicks, from its matches', async () => {
    const expected = (await visibleByClicks()).filter((row) => row.title.includes('Quokka'))
    expect(expected.length).toBe(100)
    const first = await page({ q: 'quokka' })
    const second = await page({ q: 'quokka', cursor: first.next_cursor! })
    expect(idsAndClicks([...first.items, ...second.items])).toEqual(
      expected.map((row) => [row.id, row.clicks]),
    )
    expect(second.next_cursor).toBeNull()
  })
})
