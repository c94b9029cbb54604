/**
 * GET /api/tags?q= (docs/API.md#tags): the caller's tags whose name contains the text, any case,
 * in the list's cursor pages — read along the (user_id, name_key) index within the caller's own
 * tags, with 4,000 tags of other people beside them (docs/decisions/0051-tag-search.md).
 */
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createTag } from '../../../test/helpers/links.js'
import { postgresPlanOf, sqlitePlanOf, statementsOf } from '../../../test/helpers/query-plans.js'
import { insertStrangersWithTags, insertTags } from '../../../test/helpers/tags.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const OWN = 1000
const STRANGERS = 8
const STRANGER_TAGS = 500

let alice: TestUser & SignedIn
let bob: TestUser & SignedIn

const tagName = (i: number) => `topic-${String(i).padStart(4, '0')}`

beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
  await insertTags(t, alice.user.id, OWN, tagName)
  await insertStrangersWithTags(t, STRANGERS, STRANGER_TAGS, tagName)
  for (const name of ['Comics', 'web comic', '100%_sure', '100 percent', 'Ärger'])
    await createTag(t, alice.token, name)
  await createTag(t, bob.token, 'comics of bob')
  if (t.database.engine === 'postgres') await sql`analyze tags, users`.execute(t.deps.db)
}, 120_000)

type Page = { items: Array<{ id: string; name: string }>; next_cursor: string | null }

async function search(user: SignedIn, query: string): Promise<Page> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/tags?${query}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json<Page>()
}

const names = (page: Page) => page.items.map((item) => item.name)

describe('GET /api/tags?q=', () => {
  // First: SQLite prepares a statement's text once per file, and the plan is read from it.
  it('reads the caller’s tags through the (user_id, name_key) index, in its order', async () => {
    const statements = await statementsOf(/from "tags"/, () => search(alice, 'q=topic-07&limit=50'))
    expect(statements.length).toBeGreaterThan(0)
    const [statement] = statements
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement!)
      expect(plan.seqScans, plan.text).toEqual([])
      expect(plan.text).toContain('tags_user_name_key_key')
      // Along the caller's own 1,000 tags up to the page's matches, never the 4,000 of others.
      const filtered = [...plan.text.matchAll(/"Rows Removed by Filter": (\d+)/g)]
      const dropped = filtered.reduce((sum, match) => sum + Number(match[1]), 0)
      expect(dropped, plan.text).toBeLessThan(OWN)
    } else {
      const plan = await sqlitePlanOf(t, statement!)
      expect(plan.join('\n')).toMatch(/SEARCH tags USING (COVERING )?INDEX tags_user_name_key_key/)
      expect(plan.filter((step) => /^SCAN tags\b|TEMP B-TREE/.test(step))).toEqual([])
    }
  })
  it('finds the names containing the text, any case, only among the caller’s own tags', async () => {
    expect(names(await search(alice, 'q=COMIC'))).toEqual(['Comics', 'web comic'])
    expect(names(await search(alice, 'q=%C3%A4rg'))).toEqual(['Ärger'])
    expect(names(await search(bob, 'q=comic'))).toEqual(['comics of bob'])
    expect(names(await search(alice, 'q=nothing-like-this'))).toEqual([])
  })

  it('takes LIKE’s wildcards literally', async () => {
    expect(names(await search(alice, 'q=%25_'))).toEqual(['100%_sure'])
    expect(names(await search(alice, 'q=0_s'))).toEqual([])
  })

  it('finds the 750th of 1,000 tags, and pages through a search by cursor', async () => {
    expect(names(await search(alice, `q=${tagName(750)}`))).toEqual([tagName(750)])
    const found: string[] = []
    let cursor: string | null = null
    do {
      const page: Page = await search(
        alice,
        `q=topic-09&limit=40${cursor === null ? '' : `&cursor=${cursor}`}`,
      )
      expect(page.items.length).toBeLessThanOrEqual(40)
      found.push(...names(page))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(found).toEqual(Array.from({ length: 100 }, (_, i) => tagName(900 + i)))
  })

  it('refuses an empty or too long text', async () => {
    for (const q of ['', 'x'.repeat(65)])
      expectReason(
        await t.app.inject({
          method: 'GET',
          url: `/api/tags?q=${q}`,
          headers: bearer(alice.token),
        }),
        400,
        'VALIDATION_FAILED',
      )
  })
})
