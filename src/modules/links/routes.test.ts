/**
 * Links (docs/API.md#links): CRUD shapes and reasons, URL and slug rules, tags,
 * visibility, filters.
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
import { createLink, createTag, type LinkJson } from '../../../test/helpers/links.js'
import {
  addOrgMember,
  createOrgWithRoles,
  type OrgWithRoles,
} from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
})

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
const call = (user: SignedIn, method: Method, url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: `/api/links${url}`,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload: payload as object }),
  })

const ids = (response: { json(): { items: Array<{ id: string }> } }) =>
  response.json().items.map((item) => item.id)
const fieldsOf = (response: { json(): { details?: Array<{ field: string }> } }) =>
  (response.json().details ?? []).map((d) => d.field)

describe('creating and reading links', () => {
  it('creates a personal link: exactly the Link fields, with defaults', async () => {
    const response = await call(alice, 'POST', '', { url: 'https://Example.COM' })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      url: 'https://example.com/',
      title: null,
      slug: null,
      forwarding_enabled: true,
      tag_ids: [],
      organization_id: null,
      clicks_30d: 0,
      can_change: true,
      team_ids: [],
      shared_via: null,
      pinned: false,
      created_at: expect.any(String),
      updated_at: response.json().created_at,
    })
    expect((await call(alice, 'GET', `/${response.json().id}`)).json()).toEqual(response.json())
  })

  it('stores the URL normalised: ASCII only, so it is always a valid redirect target', async () => {
    const link = await createLink(t, alice.token, {
      url: ' https://bücher.example/wiki/Straße?q=a b ',
      title: '  Books  ',
    })
    expect(link.url).toBe('https://xn--bcher-kva.example/wiki/Stra%C3%9Fe?q=a%20b')
    expect(link.title).toBe('Books')
  })

  it('accepts only absolute http(s) URLs without credentials, up to 2048 characters', async () => {
    for (const url of [
      'ftp://example.com/file',
      'javascript:alert(1)',
      'data:text/html,x',
      '/relative/path',
      'example.com',
      'https://user:pw@example.com/',
      'https://user@example.com/',
      `https://example.com/${'a'.repeat(2040)}`,
    ]) {
      const response = await call(alice, 'POST', '', { url })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(fieldsOf(response), url).toEqual(['url'])
      // The kind of problem, for a client to say what to enter in its language.
      const [problem] = response.json().details as Array<{
        code: string
        format?: string
        limit?: number
      }>
      if (url.startsWith('https://example.com/a'))
        expect(problem, url).toMatchObject({ code: 'too_long', limit: 2048 })
      else if (url.includes('@')) expect(problem!.code, url).toBe('invalid')
      else expect(problem, url).toMatchObject({ code: 'format', format: 'uri' })
    }
    expect(
      (await call(alice, 'POST', '', { url: `http://example.com/${'a'.repeat(2020)}` })).statusCode,
    ).toBe(201)
  })

  it('validates slug, title, forwarding_enabled, tag_ids and unknown fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ slug: 'has space' }, 'slug'],
      [{ slug: 'a'.repeat(65) }, 'slug'],
      [{ slug: 'ünï' }, 'slug'],
      [{ slug: '' }, 'slug'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ title: '' }, 'title'],
      [{ forwarding_enabled: 'yes' }, 'forwarding_enabled'],
      [{ tag_ids: 'one' }, 'tag_ids'],
      [{ tag_ids: ['a', 'a'] }, 'tag_ids'],
      [{ owner: 'me' }, 'owner'],
    ]
    for (const [fields, field] of cases) {
      const response = await call(alice, 'POST', '', { url: 'https://example.com/', ...fields })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(fieldsOf(response), JSON.stringify(fields)).toContain(field)
    }
    expect(fieldsOf(await call(alice, 'POST', '', {}))).toEqual(['url'])
  })

  it("takes only the caller's own tags (400 on tag_ids) and lists them by tag name", async () => {
    const [zeta, alpha] = [
      await createTag(t, alice.token, 'zeta'),
      await createTag(t, alice.token, 'Alpha'),
    ]
    const foreign = await createTag(t, bob.token, 'bobs')
    const refused = await call(alice, 'POST', '', {
      url: 'https://example.com/',
      tag_ids: [zeta.id, foreign.id],
    })
    expectReason(refused, 400, 'VALIDATION_FAILED')
    expect(refused.json().details).toEqual([
      { field: 'tag_ids', message: 'must name your own tags', code: 'invalid' },
    ])
    expect((await createLink(t, alice.token, { tag_ids: [zeta.id, alpha.id] })).tag_ids).toEqual([
      alpha.id,
      zeta.id,
    ])
  })

  it('keeps a slug to one link per owner, ignoring case (409 on slug); across owners it may repeat', async () => {
    const org = await createOrgWithRoles(t)
    await createLink(t, org.member.token, { slug: 'Handbook' })
    const duplicate = await call(org.member, 'POST', '', {
      url: 'https://example.com/other',
      slug: 'handbook',
    })
    expectReason(duplicate, 409, 'ALREADY_EXISTS')
    expect(duplicate.json().details).toBe('slug')
    await createLink(t, org.member.token, { slug: 'handbook', organization_id: org.id })
    expectReason(
      await call(org.admin, 'POST', '', {
        url: 'https://example.com/x',
        slug: 'HANDBOOK',
        organization_id: org.id,
      }),
      409,
      'ALREADY_EXISTS',
    )
    expect(
      (await call(org.admin, 'POST', '', { url: 'https://example.com/x', slug: 'HANDBOOK' }))
        .statusCode,
    ).toBe(201)
    expect(
      (await call(bob, 'POST', '', { url: 'https://example.com/y', slug: 'handbook' })).statusCode,
    ).toBe(201)
  })

  it('shares a link with an organization only when the caller is a member (404 otherwise)', async () => {
    const org = await createOrgWithRoles(t)
    const shared = await createLink(t, org.member.token, {
      organization_id: org.id,
      title: 'Team wiki',
    })
    expect(shared.organization_id).toBe(org.id)
    for (const organization_id of [org.id, 'no-such-organization']) {
      const response = await call(org.outsider, 'POST', '', {
        url: 'https://example.com/',
        organization_id,
      })
      expectReason(response, 404, 'NOT_FOUND')
    }
  })
})

describe('who sees and changes what', () => {
  let org: OrgWithRoles
  const linkOf = async (creator: SignedIn) =>
    createLink(t, creator.token, {
      organization_id: org.id,
      slug: `s${Math.random().toString(36).slice(2, 10)}`,
    })
  beforeAll(async () => {
    org = await createOrgWithRoles(t)
  })

  it("answers 404 for another user's personal link on every route, and changes nothing", async () => {
    const link = await createLink(t, alice.token, { title: 'Mine' })
    for (const [method, payload] of [['GET'], ['PATCH', { title: 'Yours' }], ['DELETE']] as const) {
      expectReason(await call(bob, method, `/${link.id}`, payload), 404, 'NOT_FOUND')
    }
    expect(ids(await call(bob, 'GET', '?limit=200'))).not.toContain(link.id)
    expect((await call(alice, 'GET', `/${link.id}`)).json().title).toBe('Mine')
  })

  it("shows an organization's links to its members only", async () => {
    const link = await linkOf(org.owner)
    for (const reader of [org.owner, org.admin, org.member]) {
      expect((await call(reader, 'GET', `/${link.id}`)).statusCode).toBe(200)
      expect(ids(await call(reader, 'GET', '?limit=200'))).toContain(link.id)
    }
    expectReason(await call(org.outsider, 'GET', `/${link.id}`), 404, 'NOT_FOUND')
    expect(ids(await call(org.outsider, 'GET', '?limit=200'))).not.toContain(link.id)
  })

  it('lets the creator, owners and admins change or delete a shared link; other members get 403', async () => {
    const byOwner = await linkOf(org.owner)
    expectReason(
      await call(org.member, 'PATCH', `/${byOwner.id}`, { title: 'Nope' }),
      403,
      'FORBIDDEN',
    )
    expectReason(await call(org.member, 'DELETE', `/${byOwner.id}`), 403, 'FORBIDDEN')
    expectReason(
      await call(org.outsider, 'PATCH', `/${byOwner.id}`, { title: 'Nope' }),
      404,
      'NOT_FOUND',
    )
    expect(
      (await call(org.admin, 'PATCH', `/${byOwner.id}`, { title: 'By admin' })).json().title,
    ).toBe('By admin')

    const byMember = await linkOf(org.member)
    expect(
      (await call(org.member, 'PATCH', `/${byMember.id}`, { forwarding_enabled: false })).json()
        .forwarding_enabled,
    ).toBe(false)
    expect(
      (await call(org.owner, 'PATCH', `/${byMember.id}`, { title: 'By owner' })).json().title,
    ).toBe('By owner')
    expect((await call(org.member, 'DELETE', `/${byMember.id}`)).statusCode).toBe(204)
    expectReason(await call(org.member, 'GET', `/${byMember.id}`), 404, 'NOT_FOUND')
    expect((await call(org.admin, 'DELETE', `/${byOwner.id}`)).statusCode).toBe(204)
    expectReason(await call(org.admin, 'DELETE', `/${byOwner.id}`), 404, 'NOT_FOUND')
  })

  it('shows each member only their own tags on a shared link', async () => {
    const ownerTag = await createTag(t, org.owner.token, `owner-${Date.now()}`)
    const link = await createLink(t, org.owner.token, {
      organization_id: org.id,
      tag_ids: [ownerTag.id],
    })
    expect(link.tag_ids).toEqual([ownerTag.id])
    expect((await call(org.member, 'GET', `/${link.id}`)).json().tag_ids).toEqual([])
    const adminTag = await createTag(t, org.admin.token, `admin-${Date.now()}`)
    expect(
      (await call(org.admin, 'PATCH', `/${link.id}`, { tag_ids: [adminTag.id] })).json().tag_ids,
    ).toEqual([adminTag.id])
    // The admin's tags replaced only the admin's own: the owner's stay.
    expect((await call(org.owner, 'GET', `/${link.id}`)).json().tag_ids).toEqual([ownerTag.id])
  })

  it('hides the links of an organization the caller left', async () => {
    const other = await createOrgWithRoles(t)
    const link = await createLink(t, other.member.token, { organization_id: other.id })
    const leave = await t.app.inject({
      method: 'DELETE',
      url: `/api/organizations/${other.id}/members/${other.member.user.id}`,
      headers: bearer(other.member.token),
    })
    expect(leave.statusCode).toBe(204)
    expectReason(await call(other.member, 'GET', `/${link.id}`), 404, 'NOT_FOUND')
    // The link stays with the organization.
    expect((await call(other.owner, 'GET', `/${link.id}`)).statusCode).toBe(200)
  })

  it("deletes a user's personal links and tags with them; their shared links stay with the organization", async () => {
    const other = await createOrgWithRoles(t)
    const tag = await createTag(t, other.member.token, 'gone with me')
    const personal = await createLink(t, other.member.token, { tag_ids: [tag.id] })
    const shared = await createLink(t, other.member.token, {
      organization_id: other.id,
      tag_ids: [tag.id],
    })
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/users/me',
      headers: bearer(other.member.token),
      payload: { password: other.member.password },
    })
    expect(deleted.statusCode).toBe(204)
    expect(
      await t.deps.db.selectFrom('links').select('id').where('id', '=', personal.id).execute(),
    ).toEqual([])
    expect(
      await t.deps.db.selectFrom('tags').select('id').where('id', '=', tag.id).execute(),
    ).toEqual([])
    expect((await call(other.admin, 'GET', `/${shared.id}`)).json()).toMatchObject({
      id: shared.id,
      tag_ids: [],
    })
    expect(
      (await call(other.admin, 'PATCH', `/${shared.id}`, { title: 'Adopted' })).statusCode,
    ).toBe(200)
    // Deleting the organization deletes its links.
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/organizations/${other.id}`,
          headers: bearer(other.owner.token),
        })
      ).statusCode,
    ).toBe(204)
    expect(
      await t.deps.db.selectFrom('links').select('id').where('id', '=', shared.id).execute(),
    ).toEqual([])
  })

  it('moves a link between the caller and their organizations', async () => {
    const personal = await createLink(t, org.member.token, { title: 'Move me' })
    const shared = await call(org.member, 'PATCH', `/${personal.id}`, { organization_id: org.id })
    expect(shared.json().organization_id).toBe(org.id)
    expect((await call(org.owner, 'GET', `/${personal.id}`)).statusCode).toBe(200)
    const back = await call(org.admin, 'PATCH', `/${personal.id}`, { organization_id: null })
    expect(back.json().organization_id).toBeNull()
    // Made personal by the admin, it is now the admin's.
    expectReason(await call(org.member, 'GET', `/${personal.id}`), 404, 'NOT_FOUND')
    expectReason(
      await call(org.admin, 'PATCH', `/${personal.id}`, {
        organization_id: 'not-a-member-of-this',
      }),
      404,
      'NOT_FOUND',
    )
  })
})

describe('updating', () => {
  it('changes any field, normalises the URL, clears title and slug with null; {} is a 400', async () => {
    const link = await createLink(t, alice.token, { title: 'Old', slug: 'old-slug' })
    const response = await call(alice, 'PATCH', `/${link.id}`, {
      url: 'HTTP://Example.org/a',
      title: null,
      slug: null,
      forwarding_enabled: false,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      id: link.id,
      url: 'http://example.org/a',
      title: null,
      slug: null,
      forwarding_enabled: false,
      created_at: link.created_at,
    })
    expect(fieldsOf(await call(alice, 'PATCH', `/${link.id}`, {}))).toEqual(['body'])
    expect(
      fieldsOf(await call(alice, 'PATCH', `/${link.id}`, { url: 'mailto:someone@example.com' })),
    ).toEqual(['url'])
    expectReason(await call(alice, 'PATCH', '/no-such-link', { title: 'x' }), 404, 'NOT_FOUND')
  })

  it('refuses a slug another link of the same owner has (409)', async () => {
    await createLink(t, alice.token, { slug: 'taken-one' })
    const link = await createLink(t, alice.token, { slug: 'free-one' })
    expectReason(
      await call(alice, 'PATCH', `/${link.id}`, { slug: 'TAKEN-ONE' }),
      409,
      'ALREADY_EXISTS',
    )
    expect((await call(alice, 'GET', `/${link.id}`)).json().slug).toBe('free-one')
  })
})

describe('listing', () => {
  let carol: TestUser & SignedIn
  let org: OrgWithRoles
  let all: LinkJson[]
  let tag: { id: string }
  beforeAll(async () => {
    carol = await createSignedInUser(t)
    org = await createOrgWithRoles(t)
    tag = await createTag(t, carol.token, 'Listed')
    all = []
    all.push(
      await createLink(t, carol.token, {
        url: 'https://docs.example.com/',
        title: 'Team Docs',
        tag_ids: [tag.id],
      }),
    )
    all.push(
      await createLink(t, carol.token, { url: 'https://example.com/100%_off', title: 'Sale' }),
    )
    all.push(
      await createLink(t, carol.token, {
        url: 'https://example.com/plain',
        title: null,
        tag_ids: [tag.id],
      }),
    )
    all.push(
      await createLink(t, carol.token, { url: 'https://example.com/DOCUMENTS', title: 'Files' }),
    )
    await addOrgMember(t, org.owner.token, org.id, carol, 'member')
    all.push(
      await createLink(t, org.owner.token, {
        url: 'https://wiki.example.com/',
        title: 'Org wiki',
      }).then(async (l) => {
        await call(org.owner, 'PATCH', `/${l.id}`, { organization_id: org.id })
        return l
      }),
    )
  })

  it('pages newest first with a cursor', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { items: LinkJson[]; next_cursor: string | null } = (
        await call(carol, 'GET', `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
      ).json()
      seen.push(...page.items.map((item) => item.id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(seen).toEqual([...all].reverse().map((link) => link.id))
    expectReason(
      await call(carol, 'GET', '?cursor=WyJub3QgYSB0aW1lIiwieCJd'),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('filters by q in the title or URL, ignoring case, with % and _ taken literally', async () => {
    expect(ids(await call(carol, 'GET', '?q=DOC'))).toEqual([all[3]!.id, all[0]!.id])
    expect(ids(await call(carol, 'GET', `?q=${encodeURIComponent('100%_')}`))).toEqual([all[1]!.id])
    expect(ids(await call(carol, 'GET', `?q=${encodeURIComponent('%')}`))).toEqual([all[1]!.id])
    expect(ids(await call(carol, 'GET', '?q=_'))).toEqual([all[1]!.id])
    expectReason(await call(carol, 'GET', '?q=a%00b'), 400, 'VALIDATION_FAILED')
  })

  it("filters by the caller's tag and by organization; someone else's tag or organization matches nothing", async () => {
    expect(ids(await call(carol, 'GET', `?tag_id=${tag.id}`))).toEqual([all[2]!.id, all[0]!.id])
    expect(ids(await call(carol, 'GET', `?organization_id=${org.id}`))).toEqual([all[4]!.id])
    expect(ids(await call(bob, 'GET', `?tag_id=${tag.id}`))).toEqual([])
    expect(ids(await call(bob, 'GET', `?organization_id=${org.id}`))).toEqual([])
    expect(ids(await call(carol, 'GET', `?tag_id=${tag.id}&q=team`))).toEqual([all[0]!.id])
  })
})
