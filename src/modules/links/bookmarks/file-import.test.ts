/**
 * POST /api/links/import/file: the file uploaded as it is and read as it arrives — a
 * browser's export with favicons over 1 MiB, the 20 MiB limit (declared or streamed), the cap on
 * bookmarks enforced while reading, and files built to make a parser slow or hungry.
 */
import { Readable } from 'node:stream'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import {
  deepNesting,
  DOCTYPE,
  firefoxExport,
  hugeAttributes,
  unclosedLists,
} from '../../../../test/helpers/bookmark-files.js'
import { expectReason } from '../../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../../test/helpers/factories.js'
import type { LinkJson } from '../../../../test/helpers/links.js'
import { createOrgWithRoles } from '../../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const MIB = 1024 * 1024

const upload = (
  user: SignedIn,
  query: string,
  payload: string | Buffer | Readable,
  contentType = 'application/octet-stream',
) =>
  t.app.inject({
    method: 'POST',
    url: `/api/links/import/file?${query}`,
    headers: { ...bearer(user.token), 'content-type': contentType },
    payload,
  })

async function linkCount(user: SignedIn): Promise<number> {
  let count = 0
  let cursor: string | null = null
  do {
    const url: string = `/api/links?limit=200${cursor === null ? '' : `&cursor=${cursor}`}`
    const page: { items: LinkJson[]; next_cursor: string | null } = (
      await t.app.inject({ method: 'GET', url, headers: bearer(user.token) })
    ).json()
    count += page.items.length
    cursor = page.next_cursor
  } while (cursor !== null)
  return count
}

const importEvents = async (userId: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', 'links.import')
      .where('target_id', '=', userId)
      .execute()
  ).length

/** A body that yields `bookmarks` anchors and then never ends, like a client that keeps sending. */
function endlessAfter(bookmarks: number): Readable {
  let sent = 0
  return new Readable({
    read() {
      if (sent === 0) this.push(DOCTYPE + '<DL><p>\n')
      if (sent < bookmarks) {
        const batch = Math.min(1000, bookmarks - sent)
        this.push(
          Array.from(
            { length: batch },
            (_, i) => `<DT><A HREF="https://e.example/${sent + i}">${sent + i}</A>\n`,
          ).join(''),
        )
        sent += batch
      }
      // Past the last anchor nothing more is pushed, and the stream is never ended.
    },
  })
}

describe('uploading a bookmark file as it is', () => {
  let ada: TestUser & SignedIn

  beforeAll(async () => {
    ada = await createSignedInUser(t)
  })

  it('imports a Firefox export with a favicon per bookmark (1.7 MB, 323 entries), which the JSON request refuses as too large', async () => {
    const file = firefoxExport({ entries: 323, iconBytes: 5200 })
    expect(file.length).toBeGreaterThan(1.6e6)
    expect(file.length).toBeLessThan(1.8e6)
    const tooLarge = await t.app.inject({
      method: 'POST',
      url: '/api/links/import',
      headers: bearer(ada.token),
      payload: { format: 'html', content: file },
    })
    expectReason(tooLarge, 413, 'PAYLOAD_TOO_LARGE')

    const response = await upload(ada, 'format=html', file)
    expect(response.statusCode).toBe(200)
    // 4 tags from TAGS, and a collection per folder (Folder 1 … Folder 12, each nested in the one
    // before: named by its path).
    expect(response.json()).toMatchObject({
      imported: 323,
      tags_created: 4,
      collections_created: 12,
      skipped: [],
    })
    expect(response.json().collections[1].name).toBe('Folder 1/Folder 2')
    const links = (
      await t.app.inject({
        method: 'GET',
        url: '/api/links?q=site10.example&limit=200',
        headers: bearer(ada.token),
      })
    ).json().items as LinkJson[]
    const tenth = links.find((link) => link.url === 'https://site10.example.org/path/10?q=a&b=10')!
    expect(tenth).toMatchObject({ title: 'Page 10 — Café & more', slug: 'kw10' })
    expect(await linkCount(ada)).toBe(323)

    // The same file again: every bookmark is a duplicate now.
    const again = await upload(ada, 'format=html', file, 'text/html')
    expect(again.json().imported).toBe(0)
    expect(again.json().skipped).toHaveLength(323)
  })

  it('imports a JSON export uploaded as it is, into an organization named in the query', async () => {
    const org = await createOrgWithRoles(t)
    const file = JSON.stringify({
      format: 'switchboard-links',
      version: 1,
      exported_at: '2026-01-01T00:00:00.000Z',
      truncated: false,
      extra: { nested: [[[{ ignored: true }]]] },
      links: [
        {
          url: 'https://json.example/1',
          title: 'One',
          slug: 'json-one',
          tags: ['a', { not: 'a tag' }, ['nor', 'this']],
          unknown: { deep: [1, 2] },
        },
        'not an object',
        [{ url: 'https://json.example/nested' }],
        { url: 'https://json.example/2', forwarding_enabled: false, url_but_not: 'x' },
      ],
    })
    expectReason(
      await upload(org.outsider, `format=json&organization_id=${org.id}`, file, 'application/json'),
      404,
      'NOT_FOUND',
    )
    const response = await upload(
      org.member,
      `format=json&organization_id=${org.id}`,
      file,
      'application/json',
    )
    expect(response.json()).toMatchObject({
      imported: 2,
      tags_created: 1,
      skipped: [
        { position: 2, url: null, reason: 'invalid_item' },
        { position: 3, url: null, reason: 'invalid_item' },
      ],
    })
    const shared = (
      await t.app.inject({
        method: 'GET',
        url: '/api/links?owner=organization',
        headers: bearer(org.member.token),
      })
    ).json().items as LinkJson[]
    expect(shared.map((link) => [link.url, link.slug, link.forwarding_enabled]).sort()).toEqual([
      ['https://json.example/1', 'json-one', true],
      ['https://json.example/2', null, false],
    ])
  })

  it('refuses what is not a file of the format named, with a 400 on content', async () => {
    for (const [query, body, message] of [
      ['format=html', '<html><body><p>Hello</p></body></html>', 'is not a bookmark file'],
      ['format=html', '', 'is not a bookmark file'],
      ['format=json', '{"links": [', 'is not valid JSON'],
      ['format=json', '{"links": [] } []', 'is not valid JSON'],
      ['format=json', '{"links": {"a": 1}}', 'must be a switchboard-links export'],
      ['format=json', '"text"', 'must be a switchboard-links export'],
      [
        'format=json',
        `{"links": [${'['.repeat(100)}${']'.repeat(100)}]}`,
        'is nested deeper than 64 levels',
      ],
    ] as const) {
      const response = await upload(ada, query, body)
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details).toEqual([
        { field: 'content', message: expect.stringContaining(message), code: 'invalid' },
      ])
    }
    expectReason(await upload(ada, 'format=csv', 'x'), 400, 'VALIDATION_FAILED')
    expectReason(await upload(ada, '', 'x'), 400, 'VALIDATION_FAILED')
  })

  it('takes the file whatever its Content-Type (none is a 415), and its document lists no 415', async () => {
    // curl --data-binary sends application/x-www-form-urlencoded unless told otherwise; the format
    // is the query's.
    for (const [index, contentType] of [
      'application/x-www-form-urlencoded',
      'text/plain; charset=utf-8',
      'multipart/form-data; boundary=x',
      'image/png',
    ].entries()) {
      const file = `${DOCTYPE}<DL><p>\n<DT><A HREF="https://media-type.example/${index}">Typed ${index}</A>\n</DL>`
      const response = await upload(ada, 'format=html', file, contentType)
      expect(response.statusCode, contentType).toBe(200)
      expect(response.json(), contentType).toMatchObject({
        imported: 1,
        tags_created: 0,
        skipped: [],
      })
    }
    const document = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    const responses = Object.keys(document.paths['/api/links/import/file'].post.responses)
    expect(responses).toEqual(expect.arrayContaining(['200', '400', '413']))
    expect(responses).not.toContain('415')
    // The JSON request keeps its 415 for a body that is not JSON.
    expect(Object.keys(document.paths['/api/links/import'].post.responses)).toContain('415')
    expectReason(
      await t.app.inject({
        method: 'POST',
        url: '/api/links/import',
        headers: { ...bearer(ada.token), 'content-type': 'text/html' },
        payload: 'x',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
  })
})

describe('the limits of an upload', () => {
  it('answers 413 at once for a declared size over 20 MiB, before reading it, and imports nothing', async () => {
    const eve = await createSignedInUser(t)
    const body = Buffer.alloc(20 * MIB + 1, ' ')
    body.write(DOCTYPE + '<DT><A HREF="https://over.example/">Over</A>')
    const started = performance.now()
    const response = await upload(eve, 'format=html', body)
    const elapsed = performance.now() - started
    expectReason(response, 413, 'PAYLOAD_TOO_LARGE')
    expect(response.json().message).toBe('The file is larger than 20 MiB.')
    expect(response.headers.connection).toBe('close')
    // Refused from the header, not after reading 20 MiB (which takes seconds here).
    expect(elapsed).toBeLessThan(500)
    expect(await linkCount(eve)).toBe(0)
    expect(await importEvents(eve.user.id)).toBe(0)
  })

  it('answers 413 for a streamed body (no Content-Length) once it passes 20 MiB, and imports nothing', async () => {
    const eve = await createSignedInUser(t)
    const anchors = Array.from(
      { length: 100 },
      (_, i) => `<DT><A HREF="https://stream.example/${i}">${i}</A>\n`,
    ).join('')
    let sent = 0
    const body = new Readable({
      read() {
        const chunk = sent === 0 ? DOCTYPE + anchors : ' '.repeat(256 * 1024)
        sent += chunk.length
        this.push(sent > 21 * MIB ? null : chunk)
      },
    })
    const response = await upload(eve, 'format=html', body)
    expectReason(response, 413, 'PAYLOAD_TOO_LARGE')
    expect(response.json().message).toBe('The file is larger than 20 MiB.')
    expect(await linkCount(eve)).toBe(0)
    expect(await importEvents(eve.user.id)).toBe(0)
  })

  it('accepts a file of just under 20 MiB, most of it favicons', async () => {
    const eve = await createSignedInUser(t)
    const file = firefoxExport({ entries: 2000, iconBytes: 10_000 })
    expect(file.length).toBeGreaterThan(19 * MIB)
    expect(file.length).toBeLessThan(20 * MIB)
    const response = await upload(eve, 'format=html', file)
    expect(response.statusCode).toBe(200)
    expect(response.json().imported).toBe(2000)
  })

  it('stops at the bookmark after the 20000th while the file is still arriving: 400, nothing imported', async () => {
    const eve = await createSignedInUser(t)
    // The body never ends: only a cap enforced during reading can answer at all.
    const response = await upload(eve, 'format=html', endlessAfter(20_001))
    expectReason(response, 400, 'VALIDATION_FAILED')
    expect(response.json().details).toEqual([
      {
        field: 'content',
        message: 'holds more than 20000 links; one import takes at most 20000 (split the file)',
        code: 'invalid',
      },
    ])
    expect(await linkCount(eve)).toBe(0)
  })
})

describe('files built to make a parser slow or hungry', () => {
  it('reads 1 MiB of unclosed lists, deep nesting and megabyte attributes in linear time', async () => {
    const eve = await createSignedInUser(t)
    const lists = await upload(eve, 'format=html', unclosedLists(MIB))
    expect(lists.json()).toMatchObject({ imported: 0, tags_created: 0, skipped: [] })

    const nested = await upload(eve, 'format=html', deepNesting(MIB))
    // The bookmark deep inside goes into one collection: the innermost folders that fit in a
    // collection's name (200 characters).
    expect(nested.json()).toMatchObject({ imported: 1, collections_created: 1, skipped: [] })
    expect(nested.json().collections[0].name.length).toBeLessThanOrEqual(200)
    expect(nested.json().collections[0].links_added).toBe(1)

    const huge = await upload(eve, 'format=html', hugeAttributes(3 * MIB))
    expect(huge.json()).toMatchObject({
      imported: 1,
      tags_created: 0,
      skipped: [
        {
          position: 1,
          url: `https://huge.example/${'h'.repeat(300 - 21)}`,
          reason: 'invalid_url',
          message: 'URL is too long',
        },
      ],
    })
    const links = (
      await t.app.inject({ method: 'GET', url: '/api/links', headers: bearer(eve.token) })
    ).json().items as LinkJson[]
    expect(links.map((link) => link.url).sort()).toEqual([
      'https://after.example/',
      'https://deep.example/',
    ])
  })

  it('ends an anchor left open at the next entry, folder or list, as a browser does', async () => {
    const eve = await createSignedInUser(t)
    const file = `${DOCTYPE}<DL><p>
      <DT><A HREF="https://open.example/1">One
      <DT><H3>Folder</H3>
      <DL><p><DT><A HREF="https://open.example/2" SHORTCUTURL="two" SHORTCUTURL="ignored">Two</DL>
      <A HREF="https://open.example/3">Three<A HREF="https://open.example/4">Four`
    expect((await upload(eve, 'format=html', file)).json()).toMatchObject({
      imported: 4,
      tags_created: 0,
      skipped: [],
      collections: [{ name: 'Folder', created: true, links_added: 1 }],
    })
    const links = (
      await t.app.inject({ method: 'GET', url: '/api/links', headers: bearer(eve.token) })
    ).json().items as LinkJson[]
    expect(links.map((link) => [link.title, link.slug]).sort()).toEqual([
      ['Four', null],
      ['One', null],
      ['Three', null],
      ['Two', 'two'],
    ])
  })
})
