/**
 * An import's dry run (`dry_run`, docs/API.md#import-and-export): the report of what the import
 * would do — counts, skipped bookmarks, the tags it would create, folded by case and plural —
 * with nothing written and nothing audited, on both import requests.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../../test/helpers/factories.js'
import { createLink, createTag } from '../../../../test/helpers/links.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const ITEMS = [
  { url: 'https://a.example/', tags: ['Comics', 'comic', 'Recipe'] },
  { url: 'https://b.example/', tags: ['Boxes', 'box', 'recipes'] },
  { url: 'https://c.example/', tags: ['New one'] },
  { url: 'https://known.example/', tags: ['Comic'] },
  { url: 'not a url', tags: ['Never'] },
]
const json = (items: unknown[]) =>
  JSON.stringify({ format: 'switchboard-links', version: 1, links: items })

const BOOKMARKS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
    <DT><H3>Reading</H3>
    <DL><p>
        <DT><A HREF="https://d.example/" TAGS="Comics,Soup">D</A>
    </DL><p>
    <DT><A HREF="https://known.example/">Known</A>
</DL><p>
`

/** How many rows the tables an import writes hold: all of them, in this file's database. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = ['links', 'tags', 'link_tags', 'collections', 'collection_links', 'audit_events']
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const row = await t.deps.db
      .selectFrom(table as 'links')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}

let ada: TestUser & SignedIn

beforeAll(async () => {
  ada = await createSignedInUser(t)
  await createTag(t, ada.token, 'recipe')
  await createLink(t, ada.token, { url: 'https://known.example/' })
})

describe('an import’s dry run', () => {
  it('answers the JSON import’s report, the new tags folded, and writes and audits nothing', async () => {
    const before = await rowCounts()
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/links/import',
      headers: bearer(ada.token),
      payload: { format: 'json', content: json(ITEMS), dry_run: true },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      dry_run: true,
      imported: 3,
      tags_created: 3,
      new_tags: ['Boxes', 'Comics', 'New one'],
      new_tags_left_out: false,
      tags: ['Boxes', 'Comics', 'New one', 'recipe'],
      links: [],
      collections: [],
      already_saved: [],
    })
    expect(
      response
        .json()
        .skipped.map((item: { reason: string }) => item.reason)
        .sort(),
    ).toEqual(['duplicate_url', 'invalid_url'])
    expect(await rowCounts()).toEqual(before)
  })

  it('with create_tags false lists the names it would leave out', async () => {
    const before = await rowCounts()
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/links/import',
      headers: bearer(ada.token),
      payload: { format: 'json', content: json(ITEMS), dry_run: true, create_tags: false },
    })
    expect(response.json()).toMatchObject({
      dry_run: true,
      imported: 3,
      tags_created: 0,
      new_tags: ['Boxes', 'Comics', 'New one'],
      new_tags_left_out: true,
      tags: ['recipe'],
    })
    expect(await rowCounts()).toEqual(before)
  })

  it('answers the uploaded file’s report, with the collections it would create, and writes nothing', async () => {
    const before = await rowCounts()
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=html&dry_run=true',
      headers: { ...bearer(ada.token), 'content-type': 'text/html' },
      payload: BOOKMARKS,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      dry_run: true,
      imported: 1,
      tags_created: 2,
      collections_created: 1,
      collections: [],
      new_tags: ['Comics', 'Soup'],
    })
    expect(await rowCounts()).toEqual(before)
  })

  it('then the import itself creates what the dry run said, and reports dry_run false', async () => {
    const preview = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=json&dry_run=true',
      headers: { ...bearer(ada.token), 'content-type': 'application/json' },
      payload: json(ITEMS),
    })
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=json',
      headers: { ...bearer(ada.token), 'content-type': 'application/json' },
      payload: json(ITEMS),
    })
    const { links: _links, dry_run: _dry, ...planned } = preview.json()
    const { links, dry_run: dryRun, ...done } = imported.json()
    expect(dryRun).toBe(false)
    expect(links).toHaveLength(3)
    expect(done).toEqual({ ...planned, already_saved: expect.any(Array) })
  })
})
