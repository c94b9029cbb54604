/**
 * GET /api/links/duplicates: the links the caller can see whose URL has the same key — the key's
 * rules, who sees what (personal, organization, a token's boundary), the importer's and the
 * migration's keys, and the statement answered from its index.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createApiTokenFor, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import { urlKey } from '../../lib/url-key.js'
import { fillKeys, urlKeyAtMigration } from '../../migrations/0080_link_url_keys.js'

const t = useTestApp()

async function duplicatesOf(token: string, url: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links/duplicates?url=${encodeURIComponent(url)}`,
    headers: bearer(token),
  })
  return { status: response.statusCode, body: response.json() }
}

describe('urlKey', () => {
  it.each([
    ['HTTPS://Example.COM/Docs', 'https://example.com/Docs'],
    ['https://example.com:443/docs/', 'https://example.com/docs'],
    ['http://example.com:80/', 'http://example.com'],
    ['https://example.com/docs#section', 'https://example.com/docs'],
    ['https://example.com/a?utm_source=x&id=7&UTM_Medium=y', 'https://example.com/a?id=7'],
    ['https://example.com/a?b=2&a=1', 'https://example.com/a?b=2&a=1'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://jira.example/browse/{1}', 'https://jira.example/browse/{1}'],
  ])('%s → %s', (url, key) => {
    expect(urlKey(url)).toBe(key)
    // The migration's frozen copy keyed existing links the same way.
    expect(urlKeyAtMigration(url)).toBe(key)
  })

  it('keeps http and https, and the path case, apart', () => {
    expect(urlKey('http://example.com/a')).not.toBe(urlKey('https://example.com/a'))
    expect(urlKey('https://example.com/A')).not.toBe(urlKey('https://example.com/a'))
  })
})

describe('GET /api/links/duplicates', () => {
  it('finds your link under another spelling of its URL, with its go-link and owner', async () => {
    const ada = await createSignedInUser(t, { name: 'Ada Lovelace' })
    const link = await createLink(t, ada.token, {
      url: 'https://Docs.Example.com:443/handbook/?utm_source=mail#intro',
      slug: 'handbook',
      title: 'Handbook',
    })
    const found = await duplicatesOf(ada.token, 'https://docs.example.com/handbook')
    expect(found.status).toBe(200)
    expect(found.body).toEqual({
      items: [
        {
          id: link.id,
          slug: 'handbook',
          title: 'Handbook',
          organization_id: null,
          owner_name: 'Ada Lovelace',
        },
      ],
    })
    expect((await duplicatesOf(ada.token, 'https://docs.example.com/other')).body).toEqual({
      items: [],
    })
  })

  it("shows organization links to members, never another person's personal link", async () => {
    const owner = await createSignedInUser(t, { name: 'Grace Hopper' })
    const member = await createSignedInUser(t, { name: 'Alan Turing' })
    const stranger = await createSignedInUser(t, { name: 'Eve' })
    const org = await createOrganization(t, owner.token, 'Analytical Engines')
    await addOrgMember(t, owner.token, org.id, member, 'member')
    const url = 'https://wiki.example.com/team'
    const shared = await createLink(t, owner.token, { url, organization_id: org.id, slug: 'team' })
    await createLink(t, stranger.token, { url, slug: 'eves-team' })

    const seen = await duplicatesOf(member.token, `${url}/`)
    expect(seen.body.items).toEqual([
      expect.objectContaining({
        id: shared.id,
        organization_id: org.id,
        owner_name: 'Analytical Engines',
      }),
    ])
    const personalBoundary = await createApiTokenFor(t, member.token, 'personal', {
      permissions: ['links:read'],
      organization_boundary: 'personal',
    })
    expect((await duplicatesOf(personalBoundary.token, url)).body.items).toEqual([])
  })

  it('keys links written by update and by the importer', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { url: 'https://a.example/' })
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${link.id}`,
      headers: bearer(user.token),
      payload: { url: 'https://b.example/page?utm_campaign=z' },
    })
    expect(moved.statusCode).toBe(200)
    expect((await duplicatesOf(user.token, 'https://b.example/page')).body.items).toHaveLength(1)
    expect((await duplicatesOf(user.token, 'https://a.example')).body.items).toEqual([])

    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/links/import',
      headers: bearer(user.token),
      payload: {
        format: 'json',
        content: JSON.stringify([{ url: 'https://c.example/Imported/', title: 'Imported' }]),
      },
    })
    expect(imported.statusCode, imported.body).toBe(200)
    expect(imported.json().already_saved).toEqual([])
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/links/import',
      headers: bearer(user.token),
      payload: {
        format: 'json',
        content: JSON.stringify([{ url: 'https://b.example/page/?utm_source=feed' }]),
      },
    })
    expect(again.json().already_saved).toEqual([
      {
        url: 'https://b.example/page/?utm_source=feed',
        links: [expect.objectContaining({ id: link.id })],
      },
    ])
    expect((await duplicatesOf(user.token, 'https://c.example/Imported')).body.items).toEqual([
      expect.objectContaining({ title: 'Imported' }),
    ])
  })

  it('the migration keys links written before the key existed, in batches', async () => {
    const user = await createSignedInUser(t)
    const links = await Promise.all(
      [1, 2, 3].map((n) => createLink(t, user.token, { url: `https://old.example/${n}/` })),
    )
    const ids = links.map((link) => link.id)
    await t.deps.db
      .updateTable('links')
      .set({ url_key: sql<string>`null` })
      .where('id', 'in', ids)
      .execute()
    expect((await duplicatesOf(user.token, 'https://old.example/2')).body.items).toEqual([])
    await fillKeys(t.deps.db as never, 'links')
    expect((await duplicatesOf(user.token, 'https://old.example/2')).body.items).toEqual([
      expect.objectContaining({ id: links[1]!.id }),
    ])
  })

  it('answers a URL that is not absolute http(s) with 400, a links:read token with 200', async () => {
    const user = await createSignedInUser(t)
    const bad = await duplicatesOf(user.token, 'javascript:alert(1)')
    expect(bad.status).toBe(400)
    expect(bad.body.reason).toBe('VALIDATION_FAILED')
    const reader = await createApiTokenFor(t, user.token, 'reader', {
      permissions: ['links:read'],
    })
    expect((await duplicatesOf(reader.token, 'https://example.org/')).status).toBe(200)
  })
})
