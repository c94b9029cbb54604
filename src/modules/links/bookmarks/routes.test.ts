/** Import and export of links: bookmark HTML and JSON, the report, limits, races, audit. */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers/app.js'
import { turnsDuring } from '../../../../test/helpers/event-loop.js'
import { expectReason } from '../../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../../test/helpers/factories.js'
import { createLink, createTag, type LinkJson } from '../../../../test/helpers/links.js'
import { createOrgWithRoles } from '../../../../test/helpers/organizations.js'
import { WRITE_PART } from './batches.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const importFile = (user: SignedIn, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/links/import', headers: bearer(user.token), payload })
const exportFile = (user: SignedIn, query: string) =>
  t.app.inject({ method: 'GET', url: `/api/links/export?${query}`, headers: bearer(user.token) })
const allLinks = async (user: SignedIn): Promise<LinkJson[]> =>
  (
    await t.app.inject({ method: 'GET', url: '/api/links?limit=200', headers: bearer(user.token) })
  ).json().items

interface CollectionJson {
  id: string
  name: string
  description: string | null
  organization_id: string | null
}
const collectionList = async (user: SignedIn): Promise<CollectionJson[]> =>
  (
    await t.app.inject({ method: 'GET', url: '/api/collections', headers: bearer(user.token) })
  ).json().items
/** The person's collections by name, each with its links' URLs in the collection's order. */
async function collectionsOf(
  user: SignedIn,
  withDescription = false,
): Promise<Record<string, unknown>> {
  const entries = await Promise.all(
    (await collectionList(user)).map(async (collection) => {
      const links = (
        await t.app.inject({
          method: 'GET',
          url: `/api/links?collection_id=${collection.id}&limit=200`,
          headers: bearer(user.token),
        })
      ).json().items as LinkJson[]
      const urls = links.map((link) => link.url)
      return [
        collection.name,
        withDescription ? { description: collection.description, urls } : urls,
      ] as const
    }),
  )
  return Object.fromEntries(entries)
}

const BOOKMARKS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000">Work</H3>
    <DL><p>
        <DT><A HREF="https://wiki.example.com/handbook" ADD_DATE="1700000000" SHORTCUTURL="handbook" TAGS="work,Docs">The &amp; handbook</A>
        <DT><A HREF="javascript:alert(1)">Bookmarklet</A>
        <DT><A HREF="https://ci.example.com/" SHORTCUTURL="has space">CI</A>
    </DL><p>
    <DT><A HREF="https://news.example.com/">News</A>
    <DT><A HREF="https://news.example.com/">News again</A>
    <DT><A HREF="https://other.example.com/" SHORTCUTURL="HANDBOOK">Another handbook</A>
</DL><p>
`

describe('importing a bookmark file', () => {
  let ada: TestUser & SignedIn

  beforeAll(async () => {
    ada = await createSignedInUser(t)
  })

  it('imports the valid bookmarks with slugs from keywords and tags, and reports the others with their reasons', async () => {
    const response = await importFile(ada, { format: 'html', content: BOOKMARKS })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      imported: 2,
      tags_created: 2,
      // The folder "Work" is a collection holding its one imported bookmark.
      collections_created: 1,
      collections: [{ id: expect.any(String), name: 'Work', created: true, links_added: 1 }],
      already_saved: [],
      dry_run: false,
      skipped: [
        {
          position: 2,
          url: 'javascript:alert(1)',
          reason: 'invalid_url',
          message: expect.any(String),
        },
        {
          position: 3,
          url: 'https://ci.example.com/',
          reason: 'invalid_slug',
          message: expect.any(String),
        },
        {
          position: 5,
          url: 'https://news.example.com/',
          reason: 'duplicate_url',
          message: expect.any(String),
        },
        {
          position: 6,
          url: 'https://other.example.com/',
          reason: 'slug_taken',
          message: expect.any(String),
        },
      ],
      // The report names the links it made, and the tags they got.
      links: [
        {
          id: expect.any(String),
          url: 'https://wiki.example.com/handbook',
          title: 'The & handbook',
        },
        { id: expect.any(String), url: 'https://news.example.com/', title: 'News' },
      ],
      tags: ['Docs', 'work'],
      new_tags: ['Docs', 'work'],
      new_tags_left_out: false,
    })
    const links = await allLinks(ada)
    const handbook = links.find((link) => link.slug === 'handbook')!
    expect(handbook).toMatchObject({
      url: 'https://wiki.example.com/handbook',
      title: 'The & handbook',
      organization_id: null,
    })
    const tags = (
      await t.app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ada.token) })
    ).json().items
    // The file's TAGS; the folder is no tag (folders_as_tags is false by default).
    expect(
      tags.map((tag: { name: string; link_count: number }) => [tag.name, tag.link_count]),
    ).toEqual([
      ['Docs', 1],
      ['work', 1],
    ])
    expect(handbook.tag_ids).toHaveLength(2)
    // ADD_DATE is the link's creation time; a bookmark without one is created now.
    expect(handbook.created_at).toBe('2023-11-14T22:13:20.000Z')
    expect(
      Math.abs(
        Date.parse(links.find((link) => link.url === 'https://news.example.com/')!.created_at) -
          t.clock.now().getTime(),
      ),
    ).toBeLessThan(60_000)

    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata', 'target_id'])
      .where('action', '=', 'links.import')
      .execute()
    expect(audit).toHaveLength(1)
    expect(audit[0]!.target_id).toBe(ada.user.id)
    expect(JSON.parse(String(audit[0]!.metadata))).toEqual({
      format: 'html',
      imported: 2,
      skipped: 4,
      tags_created: 2,
      collections: 1,
    })
  })

  it('imports nothing twice: a second import of the same file skips every link as a duplicate', async () => {
    const response = await importFile(ada, { format: 'html', content: BOOKMARKS })
    expect(response.json().imported).toBe(0)
    expect(response.json().tags_created).toBe(0)
    expect(response.json().skipped.map((s: { reason: string }) => s.reason)).toEqual([
      'duplicate_url',
      'invalid_url',
      'invalid_slug',
      'duplicate_url',
      'duplicate_url',
      'slug_taken',
    ])
  })

  it('creates each link once when the same file is imported twice at the same time', async () => {
    const grace = await createSignedInUser(t)
    const responses = await Promise.all(
      [1, 2, 3].map(() => importFile(grace, { format: 'html', content: BOOKMARKS })),
    )
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(responses.map((r) => r.json().imported).sort()).toEqual([0, 0, 2])
    expect(await allLinks(grace)).toHaveLength(2)
    const tags = (
      await t.app.inject({ method: 'GET', url: '/api/tags', headers: bearer(grace.token) })
    ).json().items
    expect(tags).toHaveLength(2)
  })

  it('refuses a file that is not a bookmark file, or not JSON, with a 400 on content', async () => {
    for (const [format, content, message] of [
      ['html', '<html><body><p>Hello</p></body></html>', 'is not a bookmark file'],
      ['json', '{"links": [', 'is not valid JSON'],
      ['json', '{"bookmarks": []}', 'must be a switchboard-links export'],
      ['json', '"text"', 'must be a switchboard-links export'],
    ] as const) {
      const response = await importFile(ada, { format, content })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details).toEqual([
        { field: 'content', message: expect.stringContaining(message), code: 'invalid' },
      ])
    }
    expectReason(await importFile(ada, { format: 'csv', content: 'x' }), 400, 'VALIDATION_FAILED')
    expectReason(await importFile(ada, { format: 'html', content: '' }), 400, 'VALIDATION_FAILED')
  })

  it('refuses a request over 1 MiB with 413 naming the limit, and more than 20000 bookmarks with 400', async () => {
    const huge = await importFile(ada, { format: 'html', content: 'x'.repeat(1024 * 1024 + 10) })
    expectReason(huge, 413, 'PAYLOAD_TOO_LARGE')
    expect(huge.json().message).toBe('The request body is larger than 1024 KiB.')
    const many = JSON.stringify(Array.from({ length: 20_001 }, () => ({})))
    const response = await importFile(ada, { format: 'json', content: many })
    expectReason(response, 400, 'VALIDATION_FAILED')
    expect(response.json().details[0].message).toContain(
      'holds more than 20000 links; one import takes at most 20000',
    )
    const exactly = await importFile(ada, {
      format: 'json',
      content: JSON.stringify(Array.from({ length: 20_000 }, () => 1)),
    })
    expect(exactly.statusCode).toBe(200)
    expect(exactly.json().skipped).toHaveLength(20_000)
    // Everything else keeps the default limit.
    const tooBig = await t.app.inject({
      method: 'POST',
      url: '/api/tags',
      headers: bearer(ada.token),
      payload: { name: 'x'.repeat(70_000) },
    })
    expect(tooBig.json().message).toBe('The request body is larger than 64 KiB.')
  })

  it('imports into an organization only for its members; the links are shared and their slugs checked there', async () => {
    const org = await createOrgWithRoles(t)
    await createLink(t, org.owner.token, {
      url: 'https://org.example/',
      slug: 'team',
      organization_id: org.id,
    })
    const content = JSON.stringify([
      { url: 'https://org.example/', title: 'dup' },
      { url: 'https://new.example/', slug: 'team' },
      {
        url: 'https://new.example/2',
        slug: 'team2',
        title: 'Two',
        forwarding_enabled: false,
        tags: ['ops'],
      },
      'not an object',
    ])
    expectReason(
      await importFile(org.outsider, { format: 'json', content, organization_id: org.id }),
      404,
      'NOT_FOUND',
    )
    const response = await importFile(org.member, {
      format: 'json',
      content,
      organization_id: org.id,
    })
    expect(response.json()).toMatchObject({
      imported: 1,
      skipped: [
        { position: 1, reason: 'duplicate_url' },
        { position: 2, reason: 'slug_taken' },
        { position: 4, url: null, reason: 'invalid_item' },
      ],
    })
    const shared = (await allLinks(org.owner)).find((link) => link.slug === 'team2')!
    expect(shared).toMatchObject({
      organization_id: org.id,
      title: 'Two',
      forwarding_enabled: false,
      tag_ids: [],
    })
  })

  it('cleans titles and tag names instead of refusing the bookmark', async () => {
    const bob = await createSignedInUser(t)
    const content = JSON.stringify({
      format: 'switchboard-links',
      links: [
        {
          url: 'https://clean.example/',
          title: `  A\u202etitle\u0000 ${'long '.repeat(60)}`,
          tags: ['  x\ty ', 'X Y', '', 7],
        },
      ],
    })
    const response = await importFile(bob, { format: 'json', content })
    expect(response.json()).toMatchObject({ imported: 1, tags_created: 1, skipped: [] })
    const [link] = await allLinks(bob)
    expect(link!.title!.startsWith('A title long')).toBe(true)
    expect(link!.title!.length).toBeLessThanOrEqual(200)
    const tags = (
      await t.app.inject({ method: 'GET', url: '/api/tags', headers: bearer(bob.token) })
    ).json().items
    expect(tags.map((tag: { name: string }) => tag.name)).toEqual(['x y'])
  })
})

describe('the collection after an import', () => {
  const exportOf = (count: number, first = 0) =>
    JSON.stringify({
      format: 'switchboard-links',
      links: Array.from({ length: count }, (_, i) => ({
        url: `https://heap.example/${first + i}`,
      })),
    })

  it('is asked for once the import read a write part or more, and not after a small one', async () => {
    const cy = await createSignedInUser(t)
    const heap = t.deps.heap
    let asked = 0
    t.deps.heap = { afterLargeWork: () => asked++ }
    try {
      const small = await importFile(cy, { format: 'json', content: exportOf(WRITE_PART - 1) })
      expect(small.json().imported).toBe(WRITE_PART - 1)
      expect(asked).toBe(0)
      // Every bookmark read counts, the skipped ones too: here one new link and the rest again.
      const large = await importFile(cy, { format: 'json', content: exportOf(WRITE_PART) })
      expect(large.json()).toMatchObject({ imported: 1 })
      expect(large.json().skipped).toHaveLength(WRITE_PART - 1)
      expect(asked).toBe(1)
    } finally {
      t.deps.heap = heap
    }
  })
})

describe('tags of an import', () => {
  const ownTags = async (user: SignedIn) =>
    (await t.app.inject({ method: 'GET', url: '/api/tags', headers: bearer(user.token) })).json<{
      items: { id: string; name: string; link_count: number }[]
    }>().items
  const tagNames = async (user: SignedIn) =>
    (await ownTags(user)).map((tag) => `${tag.name}:${tag.link_count}`)
  /** Each link's URL → the names of its tags. */
  const tagsOf = async (user: SignedIn) => {
    const names = new Map((await ownTags(user)).map((tag) => [tag.id, tag.name]))
    return new Map(
      (await allLinks(user)).map((link) => [link.url, link.tag_ids.map((id) => names.get(id))]),
    )
  }
  const file = (items: Array<{ url: string; tags: string[] }>) =>
    JSON.stringify({ format: 'switchboard-links', links: items })

  it('takes a name differing from a tag only by case or a plain plural as that tag, the existing spelling first, then the file’s first', async () => {
    const cy = await createSignedInUser(t)
    await createTag(t, cy.token, 'comic')
    await createTag(t, cy.token, 'Class')
    const response = await importFile(cy, {
      format: 'json',
      content: file([
        { url: 'https://a.example/', tags: ['Comics', 'COMIC'] },
        { url: 'https://b.example/', tags: ['classes', 'Box'] },
        { url: 'https://c.example/', tags: ['boxes', 'BOX', 'news'] },
        { url: 'https://d.example/', tags: ['New', 'as', 'a'] },
      ]),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      imported: 4,
      tags_created: 4,
      new_tags_left_out: false,
      tags: expect.arrayContaining(['comic', 'Class', 'Box']),
    })
    // "Box" came before "boxes" and "BOX"; "news" before "New" (its plural form, read backwards).
    expect(response.json().new_tags).toEqual(['a', 'as', 'Box', 'news'])
    const tags = await tagsOf(cy)
    expect(tags.get('https://a.example/')).toEqual(['comic'])
    expect(tags.get('https://b.example/')!.sort()).toEqual(['Box', 'Class'])
    expect(tags.get('https://c.example/')!.sort()).toEqual(['Box', 'news'])
    expect(tags.get('https://d.example/')!.sort()).toEqual(['a', 'as', 'news'])
    expect((await tagNames(cy)).sort()).toEqual(
      ['a:1', 'as:1', 'Box:2', 'Class:1', 'comic:1', 'news:2'].sort(),
    )
  })

  it('with create_tags false puts only existing tags on the links and lists the names it left out, on both import requests', async () => {
    const di = await createSignedInUser(t)
    await createTag(t, di.token, 'Recipe')
    const items = [
      { url: 'https://e.example/', tags: ['recipes', 'Soup', 'soups'] },
      { url: 'https://f.example/', tags: ['Bread'] },
    ]
    const response = await importFile(di, {
      format: 'json',
      content: file(items),
      create_tags: false,
    })
    expect(response.json()).toMatchObject({
      imported: 2,
      tags_created: 0,
      new_tags: ['Bread', 'Soup'],
      new_tags_left_out: true,
      tags: ['Recipe'],
    })
    const tags = await tagsOf(di)
    expect(tags.get('https://e.example/')).toEqual(['Recipe'])
    expect(tags.get('https://f.example/')).toEqual([])
    expect(await tagNames(di)).toEqual(['Recipe:1'])

    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=json&create_tags=false',
      headers: { ...bearer(di.token), 'content-type': 'application/json' },
      payload: file([{ url: 'https://g.example/', tags: ['RECIPE', 'Cake'] }]),
    })
    expect(uploaded.json()).toMatchObject({
      imported: 1,
      tags_created: 0,
      new_tags: ['Cake'],
      new_tags_left_out: true,
    })
    expect(await tagNames(di)).toEqual(['Recipe:2'])
  })
})

describe('exporting', () => {
  let eve: TestUser & SignedIn

  beforeAll(async () => {
    eve = await createSignedInUser(t)
    const tag = await createTag(t, eve.token, 'Reading')
    await createLink(t, eve.token, {
      url: 'https://a.example/?q="x"&y=<z>',
      title: 'A <b> & "c"',
      slug: 'a',
      tag_ids: [tag.id],
    })
    await createLink(t, eve.token, {
      url: 'https://b.example/',
      title: null,
      forwarding_enabled: false,
    })
  })

  it('gives the event loop a turn between its pages of 200 links', async () => {
    const owner = await createSignedInUser(t)
    const links = Array.from({ length: 450 }, (_, i) => ({ url: `https://pages.example/${i}` }))
    const content = JSON.stringify({ format: 'switchboard-links', version: 1, links })
    expect((await importFile(owner, { format: 'json', content })).statusCode).toBe(200)
    let exported: Awaited<ReturnType<typeof exportFile>> | undefined
    const turns = await turnsDuring(async () => (exported = await exportFile(owner, 'format=json')))
    expect(exported?.json().links).toHaveLength(450)
    expect(turns).toBeGreaterThanOrEqual(2)
  })

  it('writes a Netscape bookmark file as an attachment, escaped, that imports back', async () => {
    const response = await exportFile(eve, 'format=html')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="switchboard-links-\d{4}-\d{2}-\d{2}\.html"$/,
    )
    expect(response.body).toContain('<!DOCTYPE NETSCAPE-Bookmark-file-1>')
    expect(response.body).toContain('>A &lt;b&gt; &amp; &quot;c&quot;</A>')
    expect(response.body).toContain('SHORTCUTURL="a" TAGS="Reading"')
    expect(response.body).not.toContain('<b>')

    const fresh = await createSignedInUser(t)
    const imported = await importFile(fresh, { format: 'html', content: response.body })
    expect(imported.json()).toMatchObject({ imported: 2, tags_created: 1, skipped: [] })
    const links = await allLinks(fresh)
    expect(links.map((link) => [link.url, link.title, link.slug]).sort()).toEqual([
      ['https://a.example/?q=%22x%22&y=%3Cz%3E', 'A <b> & "c"', 'a'],
      ['https://b.example/', 'https://b.example/', null],
    ])
  })

  it('writes JSON with tags by name, filtered like the list, that imports back', async () => {
    const response = await exportFile(eve, 'format=json&q=a.example')
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = response.json()
    expect(body).toMatchObject({ format: 'switchboard-links', version: 1, truncated: false })
    expect(body.links).toEqual([
      expect.objectContaining({
        url: 'https://a.example/?q=%22x%22&y=%3Cz%3E',
        slug: 'a',
        tags: ['Reading'],
        organization: null,
      }),
    ])
    const all = (await exportFile(eve, 'format=json')).json()
    const fresh = await createSignedInUser(t)
    expect(
      (await importFile(fresh, { format: 'json', content: JSON.stringify(all) })).json().imported,
    ).toBe(2)
    expect(
      (await allLinks(fresh)).find((link) => link.url === 'https://b.example/')!.forwarding_enabled,
    ).toBe(false)
  })

  it('refuses an unknown format', async () => {
    expectReason(await exportFile(eve, 'format=csv'), 400, 'VALIDATION_FAILED')
    expectReason(await exportFile(eve, ''), 400, 'VALIDATION_FAILED')
  })
})

describe('slug availability and the list filters', () => {
  it('says whether a slug is free for you or your organization, ignoring case', async () => {
    const org = await createOrgWithRoles(t)
    await createLink(t, org.member.token, { slug: 'Taken' })
    const check = (user: SignedIn, query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/links/slug-availability?${query}`,
        headers: bearer(user.token),
      })
    expect((await check(org.member, 'slug=taken')).json()).toEqual({
      slug: 'taken',
      available: false,
    })
    expect((await check(org.member, `slug=taken&organization_id=${org.id}`)).json()).toEqual({
      slug: 'taken',
      available: true,
    })
    expect((await check(org.admin, 'slug=taken')).json().available).toBe(true)
    expectReason(await check(org.member, 'slug=has%20space'), 400, 'VALIDATION_FAILED')
    expectReason(await check(org.outsider, `slug=x&organization_id=${org.id}`), 404, 'NOT_FOUND')
  })

  it('finds links by slug with q, and filters personal or organization links with owner', async () => {
    const org = await createOrgWithRoles(t)
    const mine = await createLink(t, org.member.token, {
      url: 'https://mine.example/',
      slug: 'zebra-notes',
    })
    const shared = await createLink(t, org.member.token, {
      url: 'https://shared.example/',
      organization_id: org.id,
    })
    const ids = async (query: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/links?${query}`,
          headers: bearer(org.member.token),
        })
      )
        .json()
        .items.map((l: LinkJson) => l.id)
    expect(await ids('q=ZEBRA')).toEqual([mine.id])
    expect(await ids('owner=personal')).toEqual([mine.id])
    expect(await ids('owner=organization')).toEqual([shared.id])
    expectReason(
      await t.app.inject({
        method: 'GET',
        url: '/api/links?owner=everyone',
        headers: bearer(org.member.token),
      }),
      400,
      'VALIDATION_FAILED',
    )
  })
})

describe('folders, dates and a round trip', () => {
  const tagNamesOf = async (user: SignedIn): Promise<Map<string, string[]>> => {
    const tags = new Map<string, string>(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/tags?limit=200',
          headers: bearer(user.token),
        })
      )
        .json()
        .items.map((tag: { id: string; name: string }) => [tag.id, tag.name]),
    )
    return new Map(
      (await allLinks(user)).map((link) => [
        link.url,
        link.tag_ids.map((id) => tags.get(id)!).sort(),
      ]),
    )
  }
  const FIREFOX = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<H1>Bookmarks Menu</H1>
<DL><p>
    <DT><H3 ADD_DATE="1" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks Toolbar</H3>
    <DL><p>
        <DT><A HREF="https://toolbar.example/" ADD_DATE="1600000000">On the toolbar</A>
        <DT><H3>Work</H3>
        <DL><p>
            <DT><H3>Projects &amp; plans</H3>
            <DL><p>
                <DT><A HREF="https://project.example/" ADD_DATE="1600000000123" TAGS="urgent">Project</A>
            </DL><p>
            <DT><A HREF="https://work.example/" ADD_DATE="99999999999">Future</A>
        </DL><p>
    </DL><p>
    <DT><H3 UNFILED_BOOKMARKS_FOLDER="true">Other Bookmarks</H3>
    <DL><p>
        <DT><A HREF="https://other.example/">Other</A>
    </DL><p>
</DL>`

  it("makes a bookmark's folders one collection named by its path, leaving out the browser's root folders, and keeps ADD_DATE", async () => {
    const user = await createSignedInUser(t)
    const response = await importFile(user, { format: 'html', content: FIREFOX })
    expect(response.json()).toMatchObject({
      imported: 4,
      tags_created: 1,
      collections_created: 2,
      collections: [
        { name: 'Work/Projects & plans', created: true, links_added: 1 },
        { name: 'Work', created: true, links_added: 1 },
      ],
    })
    expect(Object.fromEntries(await tagNamesOf(user))).toEqual({
      'https://toolbar.example/': [],
      'https://project.example/': ['urgent'],
      'https://work.example/': [],
      'https://other.example/': [],
    })
    expect(await collectionsOf(user)).toEqual({
      Work: ['https://work.example/'],
      'Work/Projects & plans': ['https://project.example/'],
    })
    const links = await allLinks(user)
    const created = (url: string) => links.find((link) => link.url === url)!.created_at
    expect(created('https://toolbar.example/')).toBe('2020-09-13T12:26:40.000Z')
    // Milliseconds, as some tools write them, are told apart by size.
    expect(created('https://project.example/')).toBe('2020-09-13T12:26:40.123Z')
    // A date in the future is not believed: created now.
    expect(
      Math.abs(Date.parse(created('https://work.example/')) - t.clock.now().getTime()),
    ).toBeLessThan(60_000)
    // Newest first still holds: the list is ordered by the kept dates.
    expect(links.at(-1)!.url).toMatch(/toolbar|project/)
  })

  it('also makes the folder path a tag when asked (folders_as_tags=true)', async () => {
    const user = await createSignedInUser(t)
    const response = await importFile(user, {
      format: 'html',
      content: FIREFOX,
      folders_as_tags: true,
    })
    expect(response.json()).toMatchObject({
      imported: 4,
      tags_created: 3,
      collections_created: 2,
      tags: ['urgent', 'Work', 'Work/Projects & plans'],
    })
    expect(Object.fromEntries(await tagNamesOf(user))).toEqual({
      'https://toolbar.example/': [],
      'https://project.example/': ['Work/Projects & plans', 'urgent'].sort(),
      'https://work.example/': ['Work'],
      'https://other.example/': [],
    })
    expect(await collectionsOf(user)).toEqual({
      Work: ['https://work.example/'],
      'Work/Projects & plans': ['https://project.example/'],
    })
  })

  it('makes no folder tags when told so (folders_as_tags=false), on both import requests', async () => {
    const user = await createSignedInUser(t)
    const response = await importFile(user, {
      format: 'html',
      content: FIREFOX,
      folders_as_tags: false,
    })
    expect(response.json()).toMatchObject({ imported: 4, tags_created: 1, tags: ['urgent'] })
    const other = await createSignedInUser(t)
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/links/import/file?format=html&folders_as_tags=false',
      headers: { ...bearer(other.token), 'content-type': 'text/html' },
      payload: FIREFOX,
    })
    expect(uploaded.json()).toMatchObject({ imported: 4, tags_created: 1 })
  })

  it('keeps created_at from a JSON export', async () => {
    const user = await createSignedInUser(t)
    const content = JSON.stringify({
      links: [
        { url: 'https://dated.example/', created_at: '2021-02-03T04:05:06.000Z' },
        { url: 'https://bad-date.example/', created_at: 'yesterday' },
      ],
    })
    expect((await importFile(user, { format: 'json', content })).json()).toMatchObject({
      imported: 2,
    })
    const links = await allLinks(user)
    expect(links.find((link) => link.url === 'https://dated.example/')!.created_at).toBe(
      '2021-02-03T04:05:06.000Z',
    )
    expect(
      Math.abs(
        Date.parse(links.find((link) => link.url === 'https://bad-date.example/')!.created_at) -
          t.clock.now().getTime(),
      ),
    ).toBeLessThan(60_000)
  })

  it('round-trips links with every tag and date through the file, tags staying tags', async () => {
    const user = await createSignedInUser(t)
    const [projects, urgent] = await Promise.all(
      ['Work/Projects', 'urgent'].map((name) => createTag(t, user.token, name)),
    )
    await createLink(t, user.token, {
      url: 'https://one.example/',
      title: 'One',
      tag_ids: [projects!.id, urgent!.id],
    })
    await createLink(t, user.token, { url: 'https://three.example/', title: 'Three' })
    const exported = await exportFile(user, 'format=html')
    // In no collection: at the top level, whatever their tags.
    expect(exported.body).not.toContain('<H3>')
    const fresh = await createSignedInUser(t)
    const imported = await importFile(fresh, { format: 'html', content: exported.body })
    expect(imported.json()).toMatchObject({ imported: 2, tags_created: 2, skipped: [] })
    expect(await tagNamesOf(fresh)).toEqual(await tagNamesOf(user))
    // ADD_DATE holds seconds: the same second, so compared by URL.
    const dates = async (who: SignedIn) =>
      (await allLinks(who)).map((link) => `${link.url} ${link.created_at.slice(0, 19)}`).sort()
    expect(await dates(fresh)).toEqual(await dates(user))
  })
})

describe('collections in import and export', () => {
  const createCollection = async (user: SignedIn, body: Record<string, unknown>) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/collections',
      headers: bearer(user.token),
      payload: body,
    })
    expect(response.statusCode, response.body).toBe(201)
    return response.json<CollectionJson>()
  }
  const setLinks = async (user: SignedIn, id: string, linkIds: string[]) => {
    const response = await t.app.inject({
      method: 'PUT',
      url: `/api/collections/${id}/links`,
      headers: bearer(user.token),
      payload: { link_ids: linkIds },
    })
    expect(response.statusCode, response.body).toBe(200)
  }
  const folderFile = (folders: Record<string, string[]>, topLevel: string[] = []) =>
    [
      '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
      '<DL><p>',
      ...Object.entries(folders).flatMap(([name, urls]) => [
        `<DT><H3>${name}</H3>`,
        '<DL><p>',
        ...urls.map((url) => `<DT><A HREF="${url}">${url}</A>`),
        '</DL><p>',
      ]),
      ...topLevel.map((url) => `<DT><A HREF="${url}">${url}</A>`),
      '</DL><p>',
    ].join('\n')
  /** Everything a link carries that an export writes, by URL. */
  const linksOf = async (user: SignedIn, exact: boolean) => {
    const tags = new Map<string, string>(
      (await t.app.inject({ method: 'GET', url: '/api/tags', headers: bearer(user.token) }))
        .json()
        .items.map((tag: { id: string; name: string }) => [tag.id, tag.name]),
    )
    return (await allLinks(user))
      .map((link) => ({
        url: link.url,
        title: link.title,
        slug: link.slug,
        tags: link.tag_ids.map((id) => tags.get(id)).sort(),
        // HTML keeps seconds (ADD_DATE) and no forwarding switch; JSON keeps both.
        created_at: exact ? link.created_at : link.created_at.slice(0, 19),
        ...(exact && { forwarding_enabled: link.forwarding_enabled }),
      }))
      .sort((a, b) => (a.url < b.url ? -1 : 1))
  }

  /** A person with tagged links in nested, overlapping and empty collections, and one in none. */
  async function personWithCollections() {
    const user = await createSignedInUser(t)
    const tag = await createTag(t, user.token, 'urgent')
    const link = async (name: string, extra: Record<string, unknown> = {}) =>
      (
        await createLink(t, user.token, {
          url: `https://${name}.example/`,
          title: name,
          ...extra,
        })
      ).id
    const one = await link('one', { slug: 'one', tag_ids: [tag.id] })
    const two = await link('two', { forwarding_enabled: false })
    const three = await link('three')
    await link('loose', { slug: 'loose' })
    const work = await createCollection(user, { name: 'Work', description: 'Daily' })
    const projects = await createCollection(user, { name: 'Work/Projects' })
    const home = await createCollection(user, { name: 'Home' })
    await createCollection(user, { name: 'Empty', description: 'Nothing yet' })
    // Not in creation order: the collection's own order is what comes back.
    await setLinks(user, work.id, [three, one])
    await setLinks(user, projects.id, [two, one])
    await setLinks(user, home.id, [one])
    return user
  }

  it('makes each folder a collection in file order, and merges a re-import into it', async () => {
    const user = await createSignedInUser(t)
    const first = await importFile(user, {
      format: 'html',
      content: folderFile({ Work: ['https://a.example/', 'https://b.example/'] }),
    })
    expect(first.json()).toMatchObject({ imported: 2, collections_created: 1 })
    const [work] = await collectionList(user)
    // Again, with a link it has, new ones, one it holds already, and a second folder that lists
    // a link the person has already (a duplicate URL, still put into the folder's collection).
    const second = await importFile(user, {
      format: 'html',
      content: folderFile(
        {
          Work: ['https://c.example/', 'https://b.example/', 'https://d.example/'],
          Other: ['https://a.example/'],
        },
        ['https://e.example/'],
      ),
    })
    expect(second.json()).toMatchObject({
      imported: 3,
      collections_created: 1,
      collections: [
        { id: work!.id, name: 'Work', created: false, links_added: 2 },
        { name: 'Other', created: true, links_added: 1 },
      ],
      skipped: [
        { position: 2, reason: 'duplicate_url' },
        { position: 4, reason: 'duplicate_url' },
      ],
    })
    expect(await collectionsOf(user)).toEqual({
      Other: ['https://a.example/'],
      Work: [
        'https://a.example/',
        'https://b.example/',
        'https://c.example/',
        'https://d.example/',
      ],
    })
    expect((await collectionList(user)).map((collection) => collection.name)).toEqual([
      'Other',
      'Work',
    ])
    // The same file once more changes nothing.
    const third = await importFile(user, {
      format: 'html',
      content: folderFile({ Work: ['https://a.example/', 'https://b.example/'] }),
    })
    expect(third.json()).toMatchObject({
      imported: 0,
      collections_created: 0,
      collections: [{ id: work!.id, created: false, links_added: 0 }],
    })
    expect(await collectionList(user)).toHaveLength(2)
  })

  it("puts an organization's import into the organization's collections, merging by name", async () => {
    const org = await createOrgWithRoles(t)
    const first = await importFile(org.member, {
      format: 'html',
      content: folderFile({ Team: ['https://team-a.example/'] }),
      organization_id: org.id,
    })
    expect(first.json()).toMatchObject({ imported: 1, collections_created: 1 })
    const team = (await collectionList(org.owner)).find((c) => c.name === 'Team')!
    expect(team.organization_id).toBe(org.id)
    // The admin may change the member's collection: the import adds to it.
    const second = await importFile(org.admin, {
      format: 'html',
      content: folderFile({ Team: ['https://team-b.example/'] }),
      organization_id: org.id,
    })
    expect(second.json()).toMatchObject({
      collections: [{ id: team.id, created: false, links_added: 1 }],
    })
    expect((await collectionsOf(org.member)).Team).toEqual([
      'https://team-a.example/',
      'https://team-b.example/',
    ])
    // Nobody's personal collection was made.
    expect((await collectionList(org.outsider)).length).toBe(0)
  })

  it('exports collections as nested folders, a link in each of its collections, the rest at the top', async () => {
    const user = await personWithCollections()
    const html = (await exportFile(user, 'format=html')).body
    const anchor = (name: string) => `<DT><A HREF="https://${name}.example/"`
    const folder = (name: string) => `<DT><H3>${name}</H3>\\s*<DL><p>\\s*`
    const a = (name: string) => `${anchor(name)}[^\\n]*\\n\\s*`
    expect(html).toMatch(
      new RegExp(
        `${folder('Home')}${a('one')}</DL><p>\\s*${folder('Work')}${folder('Projects')}` +
          `${a('two')}${a('one')}</DL><p>\\s*${a('three')}${a('one')}</DL><p>\\s*${anchor('loose')}`,
      ),
    )
    expect(html.split(anchor('one')).length - 1).toBe(3)
    expect(html.split(anchor('loose')).length - 1).toBe(1)
    // A collection without links has no folder: a browser would drop it anyway.
    expect(html).not.toContain('Empty')
  })

  it('round-trips through the bookmark file: the same links, tags and collections in order', async () => {
    const user = await personWithCollections()
    const html = (await exportFile(user, 'format=html')).body
    const fresh = await createSignedInUser(t)
    const imported = await importFile(fresh, { format: 'html', content: html })
    expect(imported.json()).toMatchObject({ imported: 4, collections_created: 3 })
    const { Empty: _empty, ...expected } = await collectionsOf(user)
    expect(await collectionsOf(fresh)).toEqual(expected)
    expect(await linksOf(fresh, false)).toEqual(await linksOf(user, false))
  })

  it("keeps a collection's order when its links take several reads", async () => {
    const user = await createSignedInUser(t)
    // More links than one read of the export's collections (2,000), filed in reverse.
    const urls = Array.from({ length: 2100 }, (_, i) => `https://many.example/${i}`)
    const reversed = urls.map((_, i) => urls.length - 1 - i)
    const file = {
      format: 'switchboard-links',
      version: 1,
      links: urls.map((url) => ({ url })),
      collections: [{ name: 'Reversed', description: null, links: reversed }],
    }
    const imported = await importFile(user, { format: 'json', content: JSON.stringify(file) })
    expect(imported.json()).toMatchObject({ imported: 2100, collections_created: 1, skipped: [] })
    const body = (await exportFile(user, 'format=json')).json()
    const [collection] = body.collections as { name: string; links: number[] }[]
    expect(collection!.name).toBe('Reversed')
    expect(collection!.links.map((position) => body.links[position].url)).toEqual(
      [...urls].reverse(),
    )
  })

  it('carries collections in the JSON export, and round-trips everything through it', async () => {
    const user = await personWithCollections()
    const body = (await exportFile(user, 'format=json')).json()
    const urlAt = (position: number) => body.links[position].url as string
    expect(
      body.collections.map((c: { name: string; description: string | null; links: number[] }) => [
        c.name,
        c.description,
        c.links.map(urlAt),
      ]),
    ).toEqual([
      ['Empty', 'Nothing yet', []],
      ['Home', null, ['https://one.example/']],
      ['Work', 'Daily', ['https://three.example/', 'https://one.example/']],
      ['Work/Projects', null, ['https://two.example/', 'https://one.example/']],
    ])
    // Filtered, it carries the collections that hold an exported link only.
    const filtered = (await exportFile(user, 'format=json&q=three')).json()
    expect(filtered.collections).toEqual([{ name: 'Work', description: 'Daily', links: [0] }])

    const fresh = await createSignedInUser(t)
    const imported = await importFile(fresh, { format: 'json', content: JSON.stringify(body) })
    expect(imported.json()).toMatchObject({ imported: 4, collections_created: 4, skipped: [] })
    expect(await collectionsOf(fresh, true)).toEqual(await collectionsOf(user, true))
    expect(await linksOf(fresh, true)).toEqual(await linksOf(user, true))
    // The same file again adds nothing and makes no second collection.
    const again = await importFile(fresh, { format: 'json', content: JSON.stringify(body) })
    expect(again.json()).toMatchObject({ imported: 0, collections_created: 0 })
    expect(await collectionsOf(fresh, true)).toEqual(await collectionsOf(user, true))
  })
})
