/**
 * PostgreSQL: the Links page at a few thousand links — 5,000: the person's 1,000 (each with one of
 * their 20 tags), their organization's 1,000, a stranger's 3,000 — the size at which PostgreSQL's
 * default costs make reading a small table whole look cheaper than probing it by key. The page's
 * links and its extras are read by key, or by hashing the page's ids, planned for the page's values
 * and for any values (the plan a prepared statement keeps); never a whole table with each row
 * compared with every id of the page.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bareUserRow,
  bearer,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createTag } from '../../../test/helpers/links.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  analyzeIfPostgres,
  insertLinksInBulk,
  postgresGenericPlanOf,
  postgresPlanOf,
  statementsOf,
  type Statement,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const PERSONS_LINKS = 1000
const PERSONS_TAGS = 20

let user: TestUser & SignedIn

beforeAll(async () => {
  let organizationId: string
  ;({ member: user, organizationId } = await createOrganizationMember(t))
  const stranger = bareUserRow('stranger-mid', new Date().toISOString())
  await t.deps.db.insertInto('users').values(stranger).execute()
  const owners = [
    { prefix: 'mine', count: PERSONS_LINKS, owner: { userId: user.user.id } },
    { prefix: 'team', count: 1000, owner: { organizationId } },
    { prefix: 'other', count: 3000, owner: { userId: stranger.id } },
  ]
  for (const bulk of owners) await insertLinksInBulk(t, bulk)
  const tagIds: string[] = []
  for (let n = 0; n < PERSONS_TAGS; n++)
    tagIds.push((await createTag(t, user.token, `topic ${n}`)).id)
  const tagged = Array.from({ length: PERSONS_LINKS }, (_, i) => ({
    link_id: `mine-${i + 1}`,
    tag_id: tagIds[i % PERSONS_TAGS]!,
  }))
  await t.deps.db.insertInto('link_tags').values(tagged).execute()
  await analyzeIfPostgres(t)
}, 120_000)

/** The tables read whole with each row compared with a list of values (`= ANY (…)`). */
function scannedAgainstAList(plan: { seqScanFilters: { table: string; filter: string }[] }) {
  return plan.seqScanFilters
    .filter((scan) => /= ANY \(/.test(scan.filter))
    .map((scan) => scan.table)
}

async function plansOf(statement: Statement) {
  return [await postgresPlanOf(t, statement), await postgresGenericPlanOf(t, statement)]
}

async function firstPage(): Promise<{ list: Statement; extras: Statement; ids: string[] }> {
  let ids: string[] = []
  const statements = await statementsOf(/from "links"|'tag' as kind/, async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/links?limit=50',
      headers: bearer(user.token),
    })
    expect(response.statusCode).toBe(200)
    ids = response.json<{ items: { id: string }[] }>().items.map((item) => item.id)
  })
  const list = statements.find((statement) => /from "links"/.test(statement.text))
  const extras = statements.find((statement) => /'tag' as kind/.test(statement.text))
  return { list: list!, extras: extras!, ids }
}

describe('the Links page at 5,000 links on PostgreSQL', () => {
  it('reads the page’s links by their key, not the links table whole', async () => {
    const { list, ids } = await firstPage()
    expect(ids).toHaveLength(50)
    for (const plan of await plansOf(list)) {
      expect(plan.seqScans, plan.text).not.toContain('links')
      // Each owner's 51 newest from its index and the page's links by key: about 120 buffers;
      // the links table read whole and hashed against the ids touched 207.
      expect(plan.buffers, plan.text).toBeLessThan(160)
    }
  })

  it('reads the page’s tags, clicks, teams and pins without comparing each row with every id', async () => {
    const { extras } = await firstPage()
    for (const plan of await plansOf(extras)) {
      expect(scannedAgainstAList(plan), plan.text).toEqual([])
      // 15–64 buffers: link_tags read whole (10 pages here) and hashed against the page's ids, or
      // probed by them, and each tag of the page by its key; each of link_tags' rows compared
      // with the page's 51 ids, in the plan made for any page, touched 222.
      expect(plan.buffers, plan.text).toBeLessThan(120)
    }
  })
})
