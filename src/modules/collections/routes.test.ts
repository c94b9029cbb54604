/**
 * Collections (docs/API.md#collections): create, list, change and delete by the rules of links;
 * links set in order and listed in it; shared with a team, a collection shows its links to the
 * members, read-only, in the list and at /go, until they leave the team.
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
import { createLink } from '../../../test/helpers/links.js'
import { createOrgWithRoles, type OrgWithRoles } from '../../../test/helpers/organizations.js'
import { addTeamMember, createTeam, removeTeamMember } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
let owner: TestUser & SignedIn
let reader: TestUser & SignedIn
let team: { id: string; name: string }
let org: OrgWithRoles

beforeAll(async () => {
  ;[admin, owner, reader] = await Promise.all([
    createSignedInUser(t, { isAdmin: true }),
    createSignedInUser(t),
    createSignedInUser(t),
  ])
  team = await createTeam(t, admin.token, 'Readers')
  await addTeamMember(t, admin.token, team.id, owner.user.id)
  await addTeamMember(t, admin.token, team.id, reader.user.id)
  org = await createOrgWithRoles(t)
})

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'
const call = (user: SignedIn, method: Method, url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload: payload as object }),
  })
const slugs = (response: { json(): { items: Array<{ slug: string | null }> } }) =>
  response.json().items.map((item) => item.slug)

describe('collections', () => {
  it('creates, renames and deletes a collection; deleting keeps its links', async () => {
    const created = await call(owner, 'POST', '/api/collections', {
      name: 'Onboarding',
      description: 'First week',
    })
    expect(created.statusCode).toBe(201)
    expect(created.json()).toEqual({
      id: expect.any(String),
      name: 'Onboarding',
      description: 'First week',
      organization_id: null,
      team_ids: [],
      link_count: 0,
      can_change: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const id = created.json().id
    const link = await createLink(t, owner.token, { url: 'https://kept.example/' })
    await call(owner, 'PUT', `/api/collections/${id}/links`, { link_ids: [link.id] })
    const renamed = await call(owner, 'PATCH', `/api/collections/${id}`, { name: 'Week one' })
    expect(renamed.json()).toMatchObject({ name: 'Week one', link_count: 1 })
    expect(
      (await call(owner, 'GET', '/api/collections')).json().items.map((c: { id: string }) => c.id),
    ).toContain(id)
    expectReason(await call(reader, 'GET', `/api/collections/${id}`), 404, 'NOT_FOUND')
    expectReason(await call(reader, 'DELETE', `/api/collections/${id}`), 404, 'NOT_FOUND')
    expect((await call(owner, 'DELETE', `/api/collections/${id}`)).statusCode).toBe(204)
    expect((await call(owner, 'GET', `/api/links/${link.id}`)).statusCode).toBe(200)
    expectReason(await call(owner, 'GET', `/api/collections/${id}`), 404, 'NOT_FOUND')
  })

  it('sets links in order and lists them so, paging; only links the owner owns', async () => {
    const id = (await call(owner, 'POST', '/api/collections', { name: 'Ordered' })).json().id
    const [a, b, c] = [
      await createLink(t, owner.token, { url: 'https://a.example/', slug: 'coll-a' }),
      await createLink(t, owner.token, { url: 'https://b.example/', slug: 'coll-b' }),
      await createLink(t, owner.token, { url: 'https://c.example/', slug: 'coll-c' }),
    ]
    const set = await call(owner, 'PUT', `/api/collections/${id}/links`, {
      link_ids: [c.id, a.id, b.id],
    })
    expect(set.json().link_count).toBe(3)
    const first = await call(owner, 'GET', `/api/links?collection_id=${id}&limit=2`)
    expect(slugs(first)).toEqual(['coll-c', 'coll-a'])
    const next = await call(
      owner,
      'GET',
      `/api/links?collection_id=${id}&limit=2&cursor=${first.json().next_cursor}`,
    )
    expect(slugs(next)).toEqual(['coll-b'])
    // The list's total counts the collection's links the same way.
    const counted = await call(owner, 'GET', `/api/links/count?collection_id=${id}`)
    expect(counted.json()).toEqual({ total: 3, capped: false })
    const others = await createLink(t, reader.token, { url: 'https://theirs.example/' })
    const refused = await call(owner, 'PUT', `/api/collections/${id}/links`, {
      link_ids: [others.id],
    })
    expectReason(refused, 404, 'NOT_FOUND')
    expect(refused.json().details).toBe('link_ids')
    // Someone who does not see the collection gets nothing from its filter.
    expect(slugs(await call(reader, 'GET', `/api/links?collection_id=${id}`))).toEqual([])
    expect((await call(reader, 'GET', `/api/links/count?collection_id=${id}`)).json()).toEqual({
      total: 0,
      capped: false,
    })
  })

  it('shared with a team, shows its links to the members read-only, at /go too, until they leave', async () => {
    const created = await call(owner, 'POST', '/api/collections', {
      name: 'Team picks',
      team_ids: [team.id],
    })
    const id = created.json().id
    const link = await createLink(t, owner.token, {
      url: 'https://picked.example/',
      slug: 'team-pick',
    })
    await call(owner, 'PUT', `/api/collections/${id}/links`, { link_ids: [link.id] })
    const seen = await call(reader, 'GET', `/api/collections/${id}`)
    expect(seen.json()).toMatchObject({ can_change: false, team_ids: [team.id], link_count: 1 })
    expectReason(
      await call(reader, 'PATCH', `/api/collections/${id}`, { name: 'Mine' }),
      403,
      'FORBIDDEN',
    )
    const viewed = await call(reader, 'GET', `/api/links/${link.id}`)
    expect(viewed.json()).toMatchObject({
      can_change: false,
      team_ids: [],
      shared_via: { organization: null, teams: ['Readers'] },
    })
    expect(slugs(await call(reader, 'GET', `/api/links?collection_id=${id}`))).toEqual([
      'team-pick',
    ])
    expect(slugs(await call(reader, 'GET', '/api/links?scope=shared'))).toContain('team-pick')
    const go = await call(reader, 'GET', '/go/team-pick')
    expect(go.headers.location).toBe('https://picked.example/')
    // A slug changed later still reaches the team.
    await call(owner, 'PATCH', `/api/links/${link.id}`, { slug: 'team-pick-2' })
    expect((await call(reader, 'GET', '/go/team-pick-2')).statusCode).toBe(302)

    await removeTeamMember(t, admin.token, team.id, reader.user.id)
    expect((await call(reader, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
    expect((await call(reader, 'GET', '/go/team-pick-2')).statusCode).toBe(404)
    expectReason(await call(reader, 'GET', `/api/collections/${id}`), 404, 'NOT_FOUND')
    await addTeamMember(t, admin.token, team.id, reader.user.id)
  })

  it("an organization's collection: its members see it; its links only; manage_links changes it", async () => {
    const created = await call(org.member, 'POST', '/api/collections', {
      name: 'Org picks',
      organization_id: org.id,
    })
    expect(created.statusCode).toBe(201)
    const id = created.json().id
    const orgLink = await createLink(t, org.member.token, {
      url: 'https://org.example/',
      organization_id: org.id,
    })
    const personal = await createLink(t, org.member.token, { url: 'https://personal.example/' })
    expectReason(
      await call(org.member, 'PUT', `/api/collections/${id}/links`, { link_ids: [personal.id] }),
      404,
      'NOT_FOUND',
    )
    expect(
      (await call(org.admin, 'PUT', `/api/collections/${id}/links`, { link_ids: [orgLink.id] }))
        .statusCode,
    ).toBe(200)
    expect((await call(org.owner, 'GET', `/api/collections/${id}`)).json().can_change).toBe(true)
    expectReason(await call(org.outsider, 'GET', `/api/collections/${id}`), 404, 'NOT_FOUND')
    expectReason(
      await call(org.outsider, 'POST', '/api/collections', { name: 'x', organization_id: org.id }),
      404,
      'NOT_FOUND',
    )
  })

  it('audits sharing a collection, naming the teams', async () => {
    const id = (
      await call(owner, 'POST', '/api/collections', { name: 'Audited', team_ids: [team.id] })
    ).json().id
    await call(owner, 'PATCH', `/api/collections/${id}`, { team_ids: [] })
    const rows = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', id)
      .orderBy('id')
      .execute()
    expect(rows.map((row) => [row.action, JSON.parse(row.metadata).teams])).toEqual([
      ['collection.share', ['Readers']],
      ['collection.unshare', ['Readers']],
    ])
  })
})
