import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import {
  addOrgMember,
  createOrganization,
  createOrgWithRoles,
} from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const create = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/organizations', headers: bearer(token), payload })
const get = (token: string, id: string) =>
  t.app.inject({ method: 'GET', url: `/api/organizations/${id}`, headers: bearer(token) })
const patch = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/organizations/${id}`,
    headers: bearer(token),
    payload,
  })
const remove = (token: string, id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/organizations/${id}`, headers: bearer(token) })
const list = (token: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/organizations${query}`, headers: bearer(token) })

const auditOf = (id: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'actor_id', 'metadata'])
    .where('target_id', '=', id)
    .orderBy('at')
    .orderBy('id')
    .execute()

describe('POST /api/organizations', () => {
  it('creates the organization with the caller as owner: exactly the Organization fields', async () => {
    const user = await createSignedInUser(t)
    const response = await create(user.token, { name: '  Initech  ' })
    expect(response.statusCode).toBe(201)
    const body = response.json()
    expect(body).toEqual({
      id: expect.any(String),
      name: 'Initech',
      slug: 'initech',
      plan: 'free',
      role: 'owner',
      created_at: expect.any(String),
    })
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at)
    expect((await get(user.token, body.id)).json()).toEqual(body)
    const members = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organizations/${body.id}/members`,
        headers: bearer(user.token),
      })
    ).json()
    expect(members.items).toEqual([
      {
        user_id: user.user.id,
        email: user.email,
        name: user.user.name,
        role: 'owner',
        joined_at: body.created_at,
      },
    ])
    const events = await auditOf(body.id)
    expect(events.map((e) => e.action)).toEqual(['org.create'])
    expect(events[0]!.actor_id).toBe(user.user.id)
  })

  it('generates the slug from the name: lower-case, dashes, accents dropped, a numeric suffix when taken', async () => {
    const user = await createSignedInUser(t)
    const slugOf = async (name: string) => (await create(user.token, { name })).json().slug
    expect(await slugOf('Acme Rockets & Co.')).toBe('acme-rockets-co')
    expect(await slugOf('ACME rockets -- co')).toBe('acme-rockets-co-2')
    expect(await slugOf('acme rockets co')).toBe('acme-rockets-co-3')
    expect(await slugOf('Café Zürich')).toBe('cafe-zurich')
    expect(await slugOf('東京')).toBe('org')
    expect(await slugOf('東京 7')).toBe('org-7')
    expect(await slugOf('x'.repeat(100))).toBe('x'.repeat(63))
    expect(await slugOf('x'.repeat(100))).toBe(`${'x'.repeat(61)}-2`)
  })

  it('gives concurrent creations of one name distinct slugs', async () => {
    const user = await createSignedInUser(t)
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => create(user.token, { name: 'Race Condition Inc' })),
    )
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201])
    expect(responses.map((r) => r.json().slug).sort()).toEqual([
      'race-condition-inc',
      'race-condition-inc-2',
      'race-condition-inc-3',
      'race-condition-inc-4',
      'race-condition-inc-5',
    ])
  })

  it('takes an explicit slug; a taken one is 409 ALREADY_EXISTS on slug, an invalid one 400', async () => {
    const user = await createSignedInUser(t)
    expect((await create(user.token, { name: 'Globex', slug: 'globex-hq' })).json().slug).toBe(
      'globex-hq',
    )
    const taken = await create(user.token, { name: 'Other', slug: 'globex-hq' })
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'slug' })
    for (const slug of ['Globex', '-globex', 'g', 'a'.repeat(64), 'glo bex', 'glo_bex']) {
      const response = await create(user.token, { name: 'Globex', slug })
      expect(response.statusCode, slug).toBe(400)
      expect(response.json().details).toEqual([
        { field: 'slug', message: expect.stringContaining('lower-case'), code: 'pattern' },
      ])
    }
  })

  it('validates the name and refuses unknown fields', async () => {
    const user = await createSignedInUser(t)
    for (const payload of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'tab\there' },
      { name: 'Ok', plan: 'pro' },
    ]) {
      const response = await create(user.token, payload)
      expect(response.statusCode, JSON.stringify(payload)).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
    }
  })
})

describe('GET /api/organizations', () => {
  it("lists the caller's organizations by name, ignoring case, with the caller's role and cursor pages", async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const bravo = await createOrganization(t, alice.token, 'bravo')
    const alpha = await createOrganization(t, alice.token, 'Alpha')
    const charlie = await createOrganization(t, bob.token, 'Charlie')
    await createOrganization(t, bob.token, 'Not shared')
    await addOrgMember(t, bob.token, charlie.id, alice, 'member')

    const all = (await list(alice.token)).json()
    expect(all.items.map((o: { name: string; role: string }) => [o.name, o.role])).toEqual([
      ['Alpha', 'owner'],
      ['bravo', 'owner'],
      ['Charlie', 'member'],
    ])
    expect(all.next_cursor).toBeNull()

    const first = (await list(alice.token, '?limit=2')).json()
    expect(first.items.map((o: { id: string }) => o.id)).toEqual([alpha.id, bravo.id])
    const second = (await list(alice.token, `?limit=2&cursor=${first.next_cursor}`)).json()
    expect(second.items.map((o: { id: string }) => o.id)).toEqual([charlie.id])
    expect(second.next_cursor).toBeNull()
    expect((await list(alice.token, '?cursor=bogus')).statusCode).toBe(400)
  })

  it('is empty for a user without organizations', async () => {
    const user = await createSignedInUser(t)
    expect((await list(user.token)).json()).toEqual({ items: [], next_cursor: null })
  })
})

describe('GET /api/organizations/{id}', () => {
  it('answers members with their role, and 404 to outsiders and for ids that name nothing', async () => {
    const org = await createOrgWithRoles(t)
    expect((await get(org.member.token, org.id)).json().role).toBe('member')
    expect((await get(org.admin.token, org.id)).json().role).toBe('admin')
    for (const [token, id] of [
      [org.outsider.token, org.id],
      [org.owner.token, '0190a6b2-0000-7000-8000-000000000000'],
      [org.owner.token, 'not-an-id'],
      [org.owner.token, "'; drop table organizations; --"],
    ] as const) {
      const response = await get(token, encodeURIComponent(id))
      expect(response.statusCode).toBe(404)
      expect(response.json().reason).toBe('NOT_FOUND')
    }
  })
})

describe('PATCH /api/organizations/{id}', () => {
  it('lets owners and admins rename and re-slug; members get 403, outsiders 404', async () => {
    const org = await createOrgWithRoles(t)
    const renamed = await patch(org.admin.token, org.id, { name: 'Renamed by admin' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toMatchObject({
      id: org.id,
      name: 'Renamed by admin',
      slug: org.slug,
      role: 'admin',
      plan: 'free',
    })
    const reslugged = await patch(org.owner.token, org.id, { slug: `${org.slug}-new` })
    expect(reslugged.json()).toMatchObject({
      name: 'Renamed by admin',
      slug: `${org.slug}-new`,
      role: 'owner',
    })

    const byMember = await patch(org.member.token, org.id, { name: 'Nope' })
    expect(byMember.statusCode).toBe(403)
    expect(byMember.json().reason).toBe('FORBIDDEN')
    expect((await patch(org.outsider.token, org.id, { name: 'Nope' })).statusCode).toBe(404)
    expect((await get(org.member.token, org.id)).json().name).toBe('Renamed by admin')

    const events = await auditOf(org.id)
    expect(
      events.filter((e) => e.action === 'org.update').map((e) => JSON.parse(e.metadata).fields),
    ).toEqual([['name'], ['slug']])
  })

  it('refuses a taken slug (409), an empty body and a bad slug (400)', async () => {
    const org = await createOrgWithRoles(t)
    const other = await createOrganization(t, org.outsider.token)
    const taken = await patch(org.owner.token, org.id, { slug: other.slug })
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'slug' })
    expect((await patch(org.owner.token, org.id, {})).json().details).toEqual([
      { field: 'body', message: 'must contain at least one field', code: 'too_few_fields' },
    ])
    expect((await patch(org.owner.token, org.id, { slug: 'UPPER' })).statusCode).toBe(400)
  })
})

describe('DELETE /api/organizations/{id}', () => {
  it('is for owners only; it removes memberships, and the organization is gone for everyone', async () => {
    const org = await createOrgWithRoles(t)
    for (const token of [org.admin.token, org.member.token]) {
      const response = await remove(token, org.id)
      expect(response.statusCode).toBe(403)
      expect(response.json().reason).toBe('FORBIDDEN')
    }
    expect((await remove(org.outsider.token, org.id)).statusCode).toBe(404)
    expect((await remove(org.owner.token, org.id)).statusCode).toBe(204)
    expect((await get(org.owner.token, org.id)).statusCode).toBe(404)
    expect((await remove(org.owner.token, org.id)).statusCode).toBe(404)
    expect((await list(org.member.token)).json().items).toEqual([])
    const memberships = await t.deps.db
      .selectFrom('organization_members')
      .select('user_id')
      .where('organization_id', '=', org.id)
      .execute()
    expect(memberships).toEqual([])
    const events = await auditOf(org.id)
    expect(events.map((e) => e.action).at(-1)).toBe('org.delete')
  })
})
