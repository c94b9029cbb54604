/**
 * The Links list at scale: GET /api/links reads the person's links and their organizations' through
 * the owners' indexes (links/visibility.ts visibleToIndexed), not by filtering every link — with
 * 3,000 other people’s links, its statement (and its count’s) is explained on each engine as
 * it leaves the process (before: a scan of all links on both, 70 ms a page on PostgreSQL with
 * 200,000).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { createOrganizationMember } from '../../../test/helpers/organizations.js'
import {
  expectIndexed,
  insertStrangersWithLinks,
  statementsOf,
} from '../../../test/helpers/query-plans.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const OTHERS = 3000

let user: TestUser & SignedIn
const mine: string[] = []

beforeAll(async () => {
  const { member, owner, organizationId } = await createOrganizationMember(t)
  user = member
  for (let i = 0; i < 3; i++)
    mine.push((await createLink(t, user.token, { url: `https://mine.example/${i}` })).id)
  mine.push(
    (
      await createLink(t, owner.token, {
        url: 'https://team.example/',
        organization_id: organizationId,
      })
    ).id,
  )
  await insertStrangersWithLinks(t, 'listed', OTHERS)
}, 120_000)

describe('GET /api/links with 3,000 other people’s links', () => {
  it('reads the person’s and their organizations’ links by index, and lists exactly them', async () => {
    const statements = await statementsOf(/from "links"/, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/links?limit=50',
        headers: bearer(user.token),
      })
      expect(response.statusCode).toBe(200)
      expect(
        response
          .json<{ items: { id: string }[] }>()
          .items.map((item) => item.id)
          .sort(),
      ).toEqual([...mine].sort())
    })
    await expectIndexed(t, statements, 40)
  })

  it('counts the same links by the same indexes: the total of the list, with its filters', async () => {
    const count = async (query: string) => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/links/count${query}`,
        headers: bearer(user.token),
      })
      expect(response.statusCode).toBe(200)
      return response.json<{ total: number }>().total
    }
    const statements = await statementsOf(/from "links"/, async () => {
      expect(await count('')).toBe(mine.length)
    })
    expect(statements.length).toBeGreaterThan(0)
    await expectIndexed(t, statements, 40)
    expect(await count('?owner=personal')).toBe(3)
    expect(await count('?owner=organization')).toBe(1)
    expect(await count('?q=team.example')).toBe(1)
    expect(await count('?q=nowhere.example')).toBe(0)
  })
})
