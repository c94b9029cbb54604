/**
 * Bursts of `PUT /api/collections/{id}/links` with different lists and orders at once
 * (docs/API.md#collections): each request sets the whole list, so once the burst is over the
 * collection holds exactly one request's list, in its order — never a mix of two, never a link
 * twice, never a gap in the positions — and every request is answered 200.
 * links-order.race.postgres.test.ts stops the interleavings PostgreSQL allows at their worst point.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { seededRandom } from '../../../test/helpers/seeded-random.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const LINKS = 10
const BURST = 8
const ROUNDS = 6
let owner: SignedIn
let linkIds: string[]

beforeAll(async () => {
  owner = await createSignedInUser(t)
  linkIds = []
  for (let n = 0; n < LINKS; n++)
    linkIds.push((await createLink(t, owner.token, { url: `https://l${n}.example/` })).id)
})

/** A shuffled subset of the links, at least two, from the seeded generator. */
function randomList(random: () => number): string[] {
  const shuffled = [...linkIds]
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
  }
  return shuffled.slice(0, 2 + Math.floor(random() * (LINKS - 1)))
}

const putLinks = (id: string, ids: readonly string[]) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/collections/${id}/links`,
    headers: bearer(owner.token),
    payload: { link_ids: ids },
  })

/** The collection's entries as stored: link ids by position, and the positions themselves. */
async function storedEntries(id: string): Promise<{ ids: string[]; positions: number[] }> {
  const rows = await t.deps.db
    .selectFrom('collection_links')
    .select(['link_id', 'position'])
    .where('collection_id', '=', id)
    .orderBy('position')
    .execute()
  return { ids: rows.map((row) => row.link_id), positions: rows.map((row) => row.position) }
}

async function listedIds(id: string): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?collection_id=${id}&limit=200`,
    headers: bearer(owner.token),
  })
  return response.json().items.map((item: { id: string }) => item.id)
}

describe('concurrent PUTs of a collection’s links', () => {
  it('leave exactly one request’s list, in its order, after every burst', async () => {
    const random = seededRandom(48)
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/collections',
      headers: bearer(owner.token),
      payload: { name: 'Burst' },
    })
    const id: string = created.json().id
    await putLinks(id, linkIds)
    for (let round = 0; round < ROUNDS; round++) {
      const lists = Array.from({ length: BURST }, () => randomList(random))
      const answers = await Promise.all(lists.map((list) => putLinks(id, list)))
      expect(answers.map((answer) => answer.statusCode)).toEqual(lists.map(() => 200))
      const stored = await storedEntries(id)
      expect(lists).toContainEqual(stored.ids)
      expect(stored.positions).toEqual(stored.ids.map((_, n) => n))
      expect(await listedIds(id)).toEqual(stored.ids)
      const view = await t.app.inject({
        method: 'GET',
        url: `/api/collections/${id}`,
        headers: bearer(owner.token),
      })
      expect(view.json().link_count).toBe(stored.ids.length)
    }
  })
})
