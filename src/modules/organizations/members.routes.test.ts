import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
} from '../../../test/helpers/factories.js'
import {
  addOrgMember,
  createOrganization,
  createOrgWithRoles,
  type OrgRole,
} from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const members = (token: string, id: string, query = '') =>
  t.app.inject({
    method: 'GET',
    url: `/api/organizations/${id}/members${query}`,
    headers: bearer(token),
  })
const add = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${id}/members`,
    headers: bearer(token),
    payload,
  })
const setRole = (token: string, id: string, userId: string, role: OrgRole) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/organizations/${id}/members/${userId}`,
    headers: bearer(token),
    payload: { role },
  })
const removeMember = (token: string, id: string, userId: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/api/organizations/${id}/members/${userId}`,
    headers: bearer(token),
  })

const rolesIn = async (id: string) => {
  const rows = await t.deps.db
    .selectFrom('organization_members')
    .select(['user_id', 'role'])
    .where('organization_id', '=', id)
    .execute()
  return Object.fromEntries(rows.map((r) => [r.user_id, r.role]))
}
const ownerCount = async (id: string) =>
  Object.values(await rolesIn(id)).filter((role) => role === 'owner').length

describe('GET /api/organizations/{id}/members', () => {
  it('lists members by name, ignoring case, with cursor pages; readable by every member, 404 to outsiders', async () => {
    const org = await createOrgWithRoles(t)
    const zed = await createSignedInUser(t, { name: 'zed Zero' })
    await addOrgMember(t, org.owner.token, org.id, zed, 'member')
    const names = ['Adam Admin', 'Mia Member', 'Olive Owner', 'zed Zero']

    const all = await members(org.member.token, org.id)
    expect(all.statusCode).toBe(200)
    expect(all.json().items.map((m: { name: string }) => m.name)).toEqual(names)
    expect(all.json().items[0]).toEqual({
      user_id: org.admin.user.id,
      email: org.admin.email,
      name: 'Adam Admin',
      role: 'admin',
      joined_at: expect.any(String),
    })

    const first = (await members(org.member.token, org.id, '?limit=3')).json()
    expect(first.items).toHaveLength(3)
    const rest = (
      await members(org.member.token, org.id, `?limit=3&cursor=${first.next_cursor}`)
    ).json()
    expect(rest).toEqual({
      items: [expect.objectContaining({ name: 'zed Zero', user_id: zed.user.id })],
      next_cursor: null,
    })

    expectReason(await members(org.outsider.token, org.id), 404, 'NOT_FOUND')
  })
})

describe('POST /api/organizations/{id}/members', () => {
  it('invites the address (any case): 202 with the invitation, and nobody joins until the person accepts', async () => {
    const org = await createOrgWithRoles(t)
    const newcomer = await createSignedInUser(t, { name: 'New Comer' })
    const response = await add(org.admin.token, org.id, {
      email: `  ${newcomer.email.toUpperCase()} `,
      role: 'admin',
    })
    expect(response.statusCode).toBe(202)
    expect(response.json()).toEqual({
      id: expect.any(String),
      email: newcomer.email,
      role: 'admin',
      expires_at: expect.any(String),
      link: expect.stringMatching(/\/invitations\/accept\?token=[A-Za-z0-9_-]{43}$/),
      mail: 'not_configured',
      replaced: null,
      sign_up: true,
    })
    expect((await rolesIn(org.id))[newcomer.user.id]).toBeUndefined()
    const event = await t.deps.db
      .selectFrom('audit_events')
      .select(['metadata', 'actor_id'])
      .where('action', '=', 'org.invitation_create')
      .where('target_id', '=', org.id)
      .orderBy('at', 'desc')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(event.metadata)).toMatchObject({
      invitation_id: response.json().id,
      email: newcomer.email,
      role: 'admin',
    })
    expect(event.actor_id).toBe(org.admin.user.id)
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/api/invitations/${response.json().id}/accept`,
      headers: bearer(newcomer.token),
    })
    expect(accepted.statusCode).toBe(200)
    expect((await rolesIn(org.id))[newcomer.user.id]).toBe('admin')
  })

  it('lets only an owner invite an owner', async () => {
    const org = await createOrgWithRoles(t)
    const [a, b] = await Promise.all([createUser(t), createUser(t)])
    expectReason(
      await add(org.admin.token, org.id, { email: a.email, role: 'owner' }),
      403,
      'FORBIDDEN',
    )
    expect((await add(org.owner.token, org.id, { email: b.email, role: 'owner' })).statusCode).toBe(
      202,
    )
  })

  it('refuses members (403), outsiders (404) and existing members (409 on email); unknown emails are invited like any', async () => {
    const org = await createOrgWithRoles(t)
    const someone = await createUser(t)
    expectReason(
      await add(org.member.token, org.id, { email: someone.email, role: 'member' }),
      403,
      'FORBIDDEN',
    )
    expectReason(
      await add(org.outsider.token, org.id, { email: someone.email, role: 'member' }),
      404,
      'NOT_FOUND',
    )
    expect(
      (await add(org.owner.token, org.id, { email: 'nobody-here@example.com', role: 'member' }))
        .statusCode,
    ).toBe(202)
    const again = await add(org.owner.token, org.id, { email: org.member.email, role: 'admin' })
    expectReason(again, 409, 'ALREADY_EXISTS')
    expect(again.json().details).toBe('email')
  })

  it('validates email and role', async () => {
    const org = await createOrgWithRoles(t)
    const response = await add(org.owner.token, org.id, {
      email: 'not an email',
      role: 'superuser',
    })
    expect(response.statusCode).toBe(400)
    expect(
      response
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['email', 'role'])
  })
})

describe('PATCH /api/organizations/{id}/members/{user_id}', () => {
  it('changes roles within the role table', async () => {
    const org = await createOrgWithRoles(t)
    const promoted = await setRole(org.admin.token, org.id, org.member.user.id, 'admin')
    expect(promoted.statusCode).toBe(200)
    expect(promoted.json()).toMatchObject({
      user_id: org.member.user.id,
      role: 'admin',
      email: org.member.email,
    })
    expect((await setRole(org.admin.token, org.id, org.member.user.id, 'member')).json().role).toBe(
      'member',
    )
    // Admins cannot touch the owner role in either direction.
    expectReason(
      await setRole(org.admin.token, org.id, org.member.user.id, 'owner'),
      403,
      'FORBIDDEN',
    )
    expectReason(
      await setRole(org.admin.token, org.id, org.admin.user.id, 'owner'),
      403,
      'FORBIDDEN',
    )
    expectReason(
      await setRole(org.admin.token, org.id, org.owner.user.id, 'member'),
      403,
      'FORBIDDEN',
    )
    // Members change nothing, not even themselves.
    expectReason(
      await setRole(org.member.token, org.id, org.member.user.id, 'admin'),
      403,
      'FORBIDDEN',
    )
    // Owners grant ownership.
    expect((await setRole(org.owner.token, org.id, org.admin.user.id, 'owner')).json().role).toBe(
      'owner',
    )
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'org.member_role_change')
      .where('target_id', '=', org.id)
      .orderBy('at')
      .orderBy('id')
      .execute()
    expect(events.map((e) => JSON.parse(e.metadata))).toEqual([
      { user_id: org.member.user.id, from: 'member', to: 'admin' },
      { user_id: org.member.user.id, from: 'admin', to: 'member' },
      { user_id: org.admin.user.id, from: 'admin', to: 'owner' },
    ])
  })

  it('refuses to demote the last owner (409 LAST_OWNER); with a second owner it works', async () => {
    const org = await createOrgWithRoles(t)
    const alone = await setRole(org.owner.token, org.id, org.owner.user.id, 'admin')
    expectReason(alone, 409, 'LAST_OWNER')
    expect(alone.json().details).toEqual(expect.any(String))
    await setRole(org.owner.token, org.id, org.admin.user.id, 'owner')
    expect((await setRole(org.owner.token, org.id, org.owner.user.id, 'member')).statusCode).toBe(
      200,
    )
    expect(await ownerCount(org.id)).toBe(1)
  })

  it('answers 404 for someone who is not a member, to owners and admins', async () => {
    const org = await createOrgWithRoles(t)
    expectReason(
      await setRole(org.owner.token, org.id, org.outsider.user.id, 'member'),
      404,
      'NOT_FOUND',
    )
    expectReason(await setRole(org.admin.token, org.id, 'no-such-user', 'member'), 404, 'NOT_FOUND')
    expectReason(
      await setRole(org.outsider.token, org.id, org.member.user.id, 'admin'),
      404,
      'NOT_FOUND',
    )
  })
})

describe('DELETE /api/organizations/{id}/members/{user_id}', () => {
  it('removes members within the role table', async () => {
    const org = await createOrgWithRoles(t)
    expectReason(await removeMember(org.member.token, org.id, org.admin.user.id), 403, 'FORBIDDEN')
    expectReason(await removeMember(org.admin.token, org.id, org.owner.user.id), 403, 'FORBIDDEN')
    expect((await removeMember(org.admin.token, org.id, org.member.user.id)).statusCode).toBe(204)
    expectReason(await removeMember(org.admin.token, org.id, org.member.user.id), 404, 'NOT_FOUND')
    expect((await removeMember(org.owner.token, org.id, org.admin.user.id)).statusCode).toBe(204)
    expect(await rolesIn(org.id)).toEqual({ [org.owner.user.id]: 'owner' })
  })

  it('lets any member leave, but not the last owner', async () => {
    const org = await createOrgWithRoles(t)
    expect((await removeMember(org.member.token, org.id, org.member.user.id)).statusCode).toBe(204)
    expect((await removeMember(org.admin.token, org.id, org.admin.user.id)).statusCode).toBe(204)
    expectReason(await removeMember(org.owner.token, org.id, org.owner.user.id), 409, 'LAST_OWNER')
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'org.member_remove')
      .where('target_id', '=', org.id)
      .orderBy('at')
      .orderBy('id')
      .execute()
    expect(events.map((e) => JSON.parse(e.metadata).via)).toEqual(['leave', 'leave'])
  })

  it('lets an owner leave while another owner remains', async () => {
    const org = await createOrgWithRoles(t)
    await setRole(org.owner.token, org.id, org.admin.user.id, 'owner')
    expect((await removeMember(org.owner.token, org.id, org.owner.user.id)).statusCode).toBe(204)
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/organizations/${org.id}`,
          headers: bearer(org.owner.token),
        })
      ).statusCode,
    ).toBe(404)
  })
})

describe('the last owner under concurrency', () => {
  it('two owners demoting themselves at once leave one owner', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrgWithRoles(t)
      await setRole(org.owner.token, org.id, org.admin.user.id, 'owner')
      const results = await Promise.all([
        setRole(org.owner.token, org.id, org.owner.user.id, 'member'),
        setRole(org.admin.token, org.id, org.admin.user.id, 'member'),
      ])
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409])
      expect(await ownerCount(org.id)).toBe(1)
    }
  })

  it('two owners removing each other at once leave one owner', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrgWithRoles(t)
      await setRole(org.owner.token, org.id, org.admin.user.id, 'owner')
      const results = await Promise.all([
        removeMember(org.owner.token, org.id, org.admin.user.id),
        removeMember(org.admin.token, org.id, org.owner.user.id),
      ])
      // The second to run is no longer a member (404) or would remove the last owner (409).
      expect(results.filter((r) => r.statusCode === 204)).toHaveLength(1)
      expect(results.map((r) => r.statusCode).sort()[1]).toBeGreaterThanOrEqual(404)
      expect(await ownerCount(org.id)).toBe(1)
    }
  })
})

describe('deleting the only owner of an organization', () => {
  it('is refused with 409 LAST_OWNER naming the organization, until ownership is shared', async () => {
    const owner = await createSignedInUser(t)
    const other = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token, 'Sole Proprietor')
    const deleteMe = () =>
      t.app.inject({
        method: 'DELETE',
        url: '/api/users/me',
        headers: bearer(owner.token),
        payload: { password: DEFAULT_PASSWORD },
      })
    const refused = await deleteMe()
    expectReason(refused, 409, 'LAST_OWNER')
    expect(refused.json().details).toContain(org.slug)
    await addOrgMember(t, owner.token, org.id, other, 'owner')
    expect((await deleteMe()).statusCode).toBe(204)
    expect(await rolesIn(org.id)).toEqual({ [other.user.id]: 'owner' })
  })
})
