/**
 * `PUT /api/collections/{id}/links` against writers stopped at their worst point (PostgreSQL, where
 * transactions run at once; SQLite runs one write transaction at a time, and
 * links-order.burst.test.ts fires bursts on both engines): another PUT that has replaced the
 * entries but not committed, a link deletion or transfer not yet committed. Each request waits for
 * the other and then answers as if they had run one after the other.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { collectionLinkIds, createLink } from '../../../test/helpers/links.js'
import { holdOpen, raceAgainst } from '../../../test/helpers/row-locks.js'
import { moveToRecentlyDeleted } from '../links/ownership.service.js'
import { setLinkOwner } from '../links/ownership.repo.js'
import { lockCollection, lockLinksOfCollection, replaceCollectionLinks } from './repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let owner: TestUser & SignedIn
let other: TestUser & SignedIn

beforeAll(async () => {
  ;[owner, other] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
})

const request = (method: 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) =>
  t.app.inject({
    method,
    url,
    headers: bearer(owner.token),
    ...(payload !== undefined && { payload }),
  })

const putLinks = (id: string, ids: readonly string[]) =>
  request('PUT', `/api/collections/${id}/links`, { link_ids: ids })

/** A collection of the owner's holding `count` new links, in creation order. */
async function collectionWithLinks(count: number): Promise<{ id: string; links: string[] }> {
  const id: string = (await request('POST', '/api/collections', { name: 'Race' })).json().id
  const links: string[] = []
  for (let n = 0; n < count; n++)
    links.push((await createLink(t, owner.token, { url: `https://r${n}.example/` })).id)
  expect((await putLinks(id, links)).statusCode).toBe(200)
  return { id, links }
}

describe('PUT of a collection’s links while another writer is mid-way', () => {
  it('a PUT waits for another PUT’s uncommitted list, then replaces it with its own', async () => {
    const { id, links } = await collectionWithLinks(4)
    const [a, b, c, d] = links as [string, string, string, string]
    const collection = { id, user_id: owner.user.id, organization_id: null }
    // The other PUT's transaction, as setCollectionLinks runs it, stopped before its commit.
    const first = holdOpen(t.deps.db, async (tx) => {
      expect(await lockCollection(tx, id)).toBe(true)
      expect((await lockLinksOfCollection(tx, collection, [d, c, b])).size).toBe(3)
      await replaceCollectionLinks(tx, id, [d, c, b])
    })
    const { waited, answer: second } = await raceAgainst(first, () => putLinks(id, [b, a, d]))
    expect(waited).toBe(true)
    expect(second.statusCode).toBe(200)
    expect(second.json().link_count).toBe(3)
    expect(await collectionLinkIds(t, id)).toEqual([b, a, d])
  })

  it('a PUT naming a link being deleted waits, then answers 404 on link_ids and changes nothing', async () => {
    const { id, links } = await collectionWithLinks(3)
    const [a, b, c] = links as [string, string, string]
    const deleting = holdOpen(t.deps.db, async (tx) => {
      await moveToRecentlyDeleted(tx, b, owner.user.id, new Date().toISOString())
    })
    const { waited, answer } = await raceAgainst(deleting, () => putLinks(id, [c, b, a]))
    expect(waited).toBe(true)
    expectReason(answer, 404, 'NOT_FOUND')
    expect(answer.json().details).toBe('link_ids')
    expect(await collectionLinkIds(t, id)).toEqual([a, c])
  })

  it('a PUT naming a link being transferred away waits, then answers 404 and changes nothing', async () => {
    const { id, links } = await collectionWithLinks(2)
    const [a, b] = links as [string, string]
    const moving = holdOpen(t.deps.db, async (tx) => {
      const to = { user_id: other.user.id, organization_id: null }
      await setLinkOwner(tx, a, to, new Date().toISOString())
    })
    const { waited, answer } = await raceAgainst(moving, () => putLinks(id, [b, a]))
    expect(waited).toBe(true)
    expectReason(answer, 404, 'NOT_FOUND')
    expect(answer.json().details).toBe('link_ids')
    expect(await collectionLinkIds(t, id)).toEqual([a, b])
  })

  it('deleting a link waits for a PUT holding it, then takes it out of the new list', async () => {
    const { id, links } = await collectionWithLinks(3)
    const [a, b, c] = links as [string, string, string]
    const collection = { id, user_id: owner.user.id, organization_id: null }
    const putting = holdOpen(t.deps.db, async (tx) => {
      expect(await lockCollection(tx, id)).toBe(true)
      expect((await lockLinksOfCollection(tx, collection, [c, a, b])).size).toBe(3)
      await replaceCollectionLinks(tx, id, [c, a, b])
    })
    const { waited, answer: deleted } = await raceAgainst(putting, () =>
      request('DELETE', `/api/links/${a}`),
    )
    expect(waited).toBe(true)
    expect(deleted.statusCode).toBe(204)
    expect(await collectionLinkIds(t, id)).toEqual([c, b])
  })

  it('a bulk delete of a dropped and a kept link waits for a PUT that has locked its links', async () => {
    const { id, links } = await collectionWithLinks(3)
    const [a, b, c] = links as [string, string, string]
    const collection = { id, user_id: owner.user.id, organization_id: null }
    // The PUT stopped after its locks, before it replaces the entries. The bulk delete takes `a`
    // (held, dropped by the PUT) first and `c` (kept) second: had the PUT locked only the links
    // it keeps, the delete would hold `a` and its entry while the PUT waited for that entry and
    // the delete for `c` — a deadlock, one of them answered 500.
    const putting = holdOpen(
      t.deps.db,
      async (tx) => {
        expect(await lockCollection(tx, id)).toBe(true)
        expect((await lockLinksOfCollection(tx, collection, [c, b])).size).toBe(2)
      },
      (tx) => replaceCollectionLinks(tx, id, [c, b]),
    )
    const { waited, answer: deleted } = await raceAgainst(putting, () =>
      request('POST', '/api/links/bulk', { action: 'delete', link_ids: [a, c] }),
    )
    expect(waited).toBe(true)
    expect(deleted.statusCode).toBe(200)
    expect(await collectionLinkIds(t, id)).toEqual([b])
  })
})
