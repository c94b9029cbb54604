/**
 * Bulk actions on several links against `PUT /api/collections/{id}/links`, or a bulk delete, of
 * the same links in the other order (PostgreSQL, where the two run at once). Both lock the links
 * in id order, so one waits for the other: neither is answered 500 (a deadlock PostgreSQL breaks
 * by failing one), and the end state is that of the two run one after the other.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { collectionLinkIds, createLink, createTag } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import { pause, settled, shareLockOnLink } from '../../../test/helpers/row-locks.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let owner: SignedIn
let organizationId: string

beforeAll(async () => {
  owner = await createSignedInUser(t)
  organizationId = (await createOrganization(t, owner.token)).id
})

const request = (method: 'PUT' | 'POST', url: string, payload: object) =>
  t.app.inject({ method, url, headers: bearer(owner.token), payload })

/** A collection of the owner's holding a third link, and two more links `a` < `b` by id. */
async function setUp(): Promise<{ id: string; a: string; b: string; c: string }> {
  const id: string = (await request('POST', '/api/collections', { name: 'Race' })).json().id
  const made: string[] = []
  for (let n = 0; n < 3; n++)
    made.push((await createLink(t, owner.token, { url: `https://o${n}-${id}.example/` })).id)
  const [a, b, c] = made.sort() as [string, string, string]
  await request('PUT', `/api/collections/${id}/links`, { link_ids: [c] })
  return { id, a, b, c }
}

/**
 * Starts the bulk action on [b, a] while `a` is share-locked, then the PUT of [a, b]; lets the
 * lock go; answers both responses.
 */
async function race(id: string, a: string, b: string, bulk: object) {
  const lock = shareLockOnLink(t.deps.db, a)
  await lock.ready
  const bulkAnswer = request('POST', '/api/links/bulk', { ...bulk, link_ids: [b, a] })
  const bulkDone = settled(bulkAnswer)
  await pause(300)
  const putAnswer = request('PUT', `/api/collections/${id}/links`, { link_ids: [a, b] })
  await pause(300)
  const bulkWaited = !bulkDone()
  lock.release()
  await lock.done
  const [bulked, put] = await Promise.all([bulkAnswer, putAnswer])
  expect(bulkWaited).toBe(true)
  return { bulked, put }
}

describe('a bulk action on [b, a] against a PUT of [a, b]', () => {
  it('bulk delete: no 500, and the state of one after the other', async () => {
    const { id, a, b, c } = await setUp()
    const { bulked, put } = await race(id, a, b, { action: 'delete' })
    expect(bulked.statusCode).toBe(200)
    // PUT first: it set [a, b], the delete took both out. Delete first: the PUT found neither.
    if (put.statusCode === 200) expect(await collectionLinkIds(t, id)).toEqual([])
    else {
      expect(put.statusCode).toBe(404)
      expect(await collectionLinkIds(t, id)).toEqual([c])
    }
    const left = await t.deps.db
      .selectFrom('links')
      .select('id')
      .where('id', 'in', [a, b])
      .execute()
    expect(left).toEqual([])
  })

  it('bulk share: no 500, and the state of one after the other', async () => {
    const { id, a, b, c } = await setUp()
    const { bulked, put } = await race(id, a, b, {
      action: 'share',
      organization_id: organizationId,
    })
    expect(bulked.statusCode).toBe(200)
    expect(bulked.json().count).toBe(2)
    // PUT first: [a, b], which then left the personal collection with their move. Share first:
    // the PUT named links no longer the owner's personal ones.
    if (put.statusCode === 200) expect(await collectionLinkIds(t, id)).toEqual([])
    else {
      expect(put.statusCode).toBe(404)
      expect(await collectionLinkIds(t, id)).toEqual([c])
    }
    const moved = await t.deps.db
      .selectFrom('links')
      .select('organization_id')
      .where('id', 'in', [a, b])
      .execute()
    expect(moved.map((row) => row.organization_id)).toEqual([organizationId, organizationId])
  })
})

/**
 * A bulk tag change on [b, a] against a bulk delete of [a, b]. The delete locks `a`, then waits
 * for `b` (share-locked by a third transaction); the tag change starts meanwhile. Were its rows
 * written in the order asked, it would hold `b` (a tag row's reference to its link) and wait for
 * `a`, and the delete, let go on `b`, would wait for it: a deadlock, answered 500. Taking its
 * links in id order too, it waits for `a` before touching `b`.
 */
describe('a bulk tag change on [b, a] against a bulk delete of [a, b]', () => {
  it.each(['add_tag', 'remove_tag'] as const)('%s: no 500, and the delete done', async (action) => {
    const { a, b } = await setUp()
    const tag = await createTag(t, owner.token, `race-${action}`)
    const lock = shareLockOnLink(t.deps.db, b)
    await lock.ready
    const deleted = request('POST', '/api/links/bulk', { action: 'delete', link_ids: [a, b] })
    await pause(300)
    const tagged = request('POST', '/api/links/bulk', {
      action,
      tag_id: tag.id,
      link_ids: [b, a],
    })
    await pause(300)
    lock.release()
    await lock.done
    const [deleteAnswer, tagAnswer] = await Promise.all([deleted, tagged])
    expect(deleteAnswer.statusCode).toBe(200)
    // The delete went first: the tag change finds the links gone, as for links never seen.
    expect(tagAnswer.statusCode).toBe(404)
    const left = await t.deps.db
      .selectFrom('links')
      .select('id')
      .where('id', 'in', [a, b])
      .execute()
    expect(left).toEqual([])
  })
})
