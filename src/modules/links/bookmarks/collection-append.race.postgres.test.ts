/**
 * An import appending to a collection while a `PUT /api/collections/{id}/links` of it has replaced
 * its entries but not committed (PostgreSQL, where the two run at once): the import waits for the
 * collection, then appends after the list the PUT left — positions 0..n-1, each once.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../../test/helpers/factories.js'
import { createLink } from '../../../../test/helpers/links.js'
import {
  lockCollection,
  lockLinksOfCollection,
  replaceCollectionLinks,
} from '../../collections/repo.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let owner: SignedIn & { user: { id: string } }

beforeAll(async () => {
  owner = await createSignedInUser(t)
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const folderFile = (name: string, urls: string[]) =>
  [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<DL><p>',
    `<DT><H3>${name}</H3>`,
    '<DL><p>',
    ...urls.map((url) => `<DT><A HREF="${url}">${url}</A>`),
    '</DL><p>',
    '</DL><p>',
  ].join('\n')

async function storedEntries(id: string) {
  const rows = await t.deps.db
    .selectFrom('collection_links')
    .select(['link_id', 'position'])
    .where('collection_id', '=', id)
    .orderBy('position')
    .execute()
  return { ids: rows.map((row) => row.link_id), positions: rows.map((row) => row.position) }
}

describe('an import into a collection a PUT is changing', () => {
  it('waits for the PUT, then appends after its list', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/collections',
      headers: bearer(owner.token),
      payload: { name: 'Reading' },
    })
    const id: string = created.json().id
    const p = (await createLink(t, owner.token, { url: 'https://p.example/' })).id
    const q = (await createLink(t, owner.token, { url: 'https://q.example/' })).id
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/collections/${id}/links`,
      headers: bearer(owner.token),
      payload: { link_ids: [p] },
    })
    expect(put.statusCode).toBe(200)

    // The PUT of [q, p], as setCollectionLinks runs it, stopped before its commit.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let stepped!: () => void
    const ready = new Promise<void>((resolve) => (stepped = resolve))
    const collection = { id, user_id: owner.user.id, organization_id: null }
    const putting = t.deps.db.transaction().execute(async (tx) => {
      expect(await lockCollection(tx, id)).toBe(true)
      expect((await lockLinksOfCollection(tx, collection, [q, p])).size).toBe(2)
      await replaceCollectionLinks(tx, id, [q, p])
      stepped()
      await held
    })
    await ready
    let answered = false
    const importing = t.app
      .inject({
        method: 'POST',
        url: '/api/links/import',
        headers: bearer(owner.token),
        payload: {
          format: 'html',
          content: folderFile('Reading', ['https://y.example/', 'https://p.example/']),
        },
      })
      .finally(() => (answered = true))
    await pause(500)
    const waited = !answered
    release()
    await putting
    const imported = await importing
    expect(waited).toBe(true)
    expect(imported.statusCode).toBe(200)
    expect(imported.json().collections).toEqual([
      { id, name: 'Reading', created: false, links_added: 1 },
    ])
    const stored = await storedEntries(id)
    expect(stored.ids.slice(0, 2)).toEqual([q, p])
    expect(stored.ids).toHaveLength(3)
    expect(stored.positions).toEqual([0, 1, 2])
  })
})
