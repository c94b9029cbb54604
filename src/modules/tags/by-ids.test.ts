/**
 * GET /api/tags?ids= (docs/API.md#tags): the names of the tags a page of links carries, asked in
 * one request — only the caller's own, read by primary key; another person's id and an unknown id
 * are alike absent.
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
import { createLink, createTag } from '../../../test/helpers/links.js'
import { postgresPlanOf, sqlitePlanOf, statementsOf } from '../../../test/helpers/query-plans.js'
import { insertStrangersWithTags } from '../../../test/helpers/tags.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const OWN = 250
const STRANGERS = 8
const STRANGER_TAGS = 500

let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
const aliceTags: Array<{ id: string; name: string }> = []
let bobTag: { id: string; name: string }

beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
  for (let i = 1; i <= OWN; i++)
    aliceTags.push(await createTag(t, alice.token, `tag ${String(i).padStart(3, '0')}`))
  bobTag = await createTag(t, bob.token, 'private to bob')
  await insertStrangersWithTags(
    t,
    STRANGERS,
    STRANGER_TAGS,
    (n) => `tag ${String(n).padStart(3, '0')}`,
  )
  if (t.database.engine === 'postgres') await sql`analyze tags`.execute(t.deps.db)
}, 120_000)

type Page = {
  items: Array<{ id: string; name: string; link_count: number }>
  next_cursor: string | null
}

const byIds = (user: SignedIn, query: string) =>
  t.app.inject({ method: 'GET', url: `/api/tags?${query}`, headers: bearer(user.token) })

async function names(user: SignedIn, ids: readonly string[]): Promise<Page> {
  const response = await byIds(user, `ids=${ids.join(',')}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<Page>()
}

describe('GET /api/tags?ids=', () => {
  // First: SQLite prepares a statement's text once per file, and the plan is read from it.
  it('reads the tags by primary key, never along anyone’s other tags', async () => {
    const ids = [aliceTags[249]!.id, aliceTags[3]!.id]
    const statements = await statementsOf(/from "tags"/, () => names(alice, ids))
    expect(statements.length).toBeGreaterThan(0)
    const [statement] = statements
    if (t.database.engine === 'postgres') {
      const plan = await postgresPlanOf(t, statement!)
      expect(plan.seqScans, plan.text).toEqual([])
      expect(plan.text).toContain('tags_pkey')
    } else {
      const plan = (await sqlitePlanOf(t, statement!)).join('\n')
      expect(plan).toMatch(/SEARCH tags USING INDEX sqlite_autoindex_tags_1 \(id=\?\)/)
      expect(plan).not.toMatch(/^SCAN tags\b/m)
    }
  })

  it('answers the caller’s tags among the ids, by name, in one page with their counts', async () => {
    const [first, last] = [aliceTags[0]!, aliceTags[OWN - 1]!]
    await createLink(t, alice.token, { tag_ids: [last.id] })
    const page = await names(alice, [last.id, first.id, last.id])
    expect(page).toEqual({
      items: [
        expect.objectContaining({ id: first.id, name: 'tag 001', link_count: 0 }),
        expect.objectContaining({ id: last.id, name: 'tag 250', link_count: 1 }),
      ],
      next_cursor: null,
    })
  })

  it('answers 100 ids in one page, whatever the limit', async () => {
    const ids = aliceTags.slice(100, 200).map((tag) => tag.id)
    const response = await byIds(alice, `ids=${ids.join(',')}&limit=10`)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json<Page>().items.map((tag) => tag.id)).toEqual(ids)
  })

  it('leaves out another person’s id exactly as an unknown one: nothing tells them apart', async () => {
    const own = aliceTags[10]!
    const withBobs = await names(alice, [own.id, bobTag.id])
    const withUnknown = await names(alice, [own.id, 'no-such-tag'])
    expect(withBobs).toEqual(withUnknown)
    expect(withBobs.items.map((tag) => tag.id)).toEqual([own.id])
    expect(await names(alice, [bobTag.id])).toEqual({ items: [], next_cursor: null })
    expect((await names(bob, [bobTag.id, own.id])).items.map((tag) => tag.name)).toEqual([
      'private to bob',
    ])
  })

  it('refuses more than 100 ids, a malformed list, and ids with q or cursor', async () => {
    const many = aliceTags.slice(0, 101).map((tag) => tag.id)
    for (const query of [
      `ids=${many.join(',')}`,
      'ids=',
      'ids=a,,b',
      'ids=a%20b',
      `ids=${aliceTags[0]!.id}&q=tag`,
      `ids=${aliceTags[0]!.id}&cursor=abc`,
    ]) {
      const response = await byIds(alice, query)
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details, query).toEqual([expect.objectContaining({ field: 'ids' })])
    }
  })
})
