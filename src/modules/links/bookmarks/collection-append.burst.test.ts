/**
 * Imports appending to one collection at the same time as each other and as PUTs of its links
 * (both engines): each import appends inside the transaction that holds the collection, after
 * the last position then, so once the burst is over the positions are 0..n-1, each once, and every
 * link is there once. collection-append.race.postgres.test.ts stops a PUT at its worst point.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../../test/helpers/factories.js'
import { createLink } from '../../../../test/helpers/links.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const IMPORTS = 4
const ROUNDS = 3
let owner: SignedIn

beforeAll(async () => {
  owner = await createSignedInUser(t)
})

const folderFile = (urls: string[]) =>
  [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<DL><p>',
    '<DT><H3>Burst</H3>',
    '<DL><p>',
    ...urls.map((url) => `<DT><A HREF="${url}">${url}</A>`),
    '</DL><p>',
    '</DL><p>',
  ].join('\n')

const importFolder = (urls: string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/api/links/import',
    headers: bearer(owner.token),
    payload: { format: 'html', content: folderFile(urls) },
  })

describe('imports into one collection at once, with PUTs between', () => {
  it('leave positions 0..n-1, each once, and each link once', async () => {
    const seed = (await createLink(t, owner.token, { url: 'https://seed.example/' })).id
    const first = await importFolder(['https://seed.example/'])
    expect(first.statusCode).toBe(200)
    const id: string = first.json().collections[0].id
    for (let round = 0; round < ROUNDS; round++) {
      const files = Array.from({ length: IMPORTS }, (_, n) =>
        // Each file also names the seed link, which the collection holds already.
        ['https://seed.example/', ...[0, 1, 2].map((k) => `https://r${round}-i${n}-${k}.example/`)],
      )
      const answers = await Promise.all([
        ...files.map((urls) => importFolder(urls)),
        t.app.inject({
          method: 'PUT',
          url: `/api/collections/${id}/links`,
          headers: bearer(owner.token),
          payload: { link_ids: [seed] },
        }),
      ])
      expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200))
      const rows = await t.deps.db
        .selectFrom('collection_links')
        .select(['link_id', 'position'])
        .where('collection_id', '=', id)
        .orderBy('position')
        .execute()
      expect(rows.map((row) => row.position)).toEqual(rows.map((_, n) => n))
      expect(new Set(rows.map((row) => row.link_id)).size).toBe(rows.length)
      expect(rows.map((row) => row.link_id)).toContain(seed)
    }
  })
})
