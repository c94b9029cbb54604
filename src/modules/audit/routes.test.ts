import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const auditLog = (token: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/admin/audit-log${query}`, headers: bearer(token) })

interface AuditItem {
  id: string
  at: string
  actor_id: string | null
  action: string
  target_id: string | null
  metadata: Record<string, unknown>
}

async function allItems(admin: TestUser & SignedIn, query: string): Promise<AuditItem[]> {
  const items: AuditItem[] = []
  let cursor: string | null = null
  do {
    const response = await auditLog(
      admin.token,
      `${query}&limit=3${cursor === null ? '' : `&cursor=${cursor}`}`,
    )
    expect(response.statusCode).toBe(200)
    items.push(...response.json().items)
    cursor = response.json().next_cursor
  } while (cursor !== null)
  return items
}

describe('GET /api/admin/audit-log', () => {
  it('lists events newest first with every field, metadata as an object, in cursor pages', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const org = await createOrganization(t, admin.token, 'Audited')
    t.clock.advance(1)
    await t.app.inject({
      method: 'PATCH',
      url: `/api/organizations/${org.id}`,
      headers: bearer(admin.token),
      payload: { name: 'Audited twice' },
    })

    const response = await auditLog(admin.token, `?actor_id=${admin.user.id}&limit=1`)
    expect(response.statusCode).toBe(200)
    const [newest] = response.json().items
    expect(newest).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      actor_id: admin.user.id,
      actor_email: admin.email,
      action: 'org.update',
      target_type: 'organization',
      target_id: org.id,
      ip: '127.0.0.1',
      metadata: { fields: ['name'], name: 'Audited twice' },
      target_label: 'Audited twice',
    })
    expect(response.json().next_cursor).toEqual(expect.any(String))

    const everything = await allItems(admin, `?actor_id=${admin.user.id}`)
    expect(everything.map((e) => e.action)).toEqual(['org.update', 'org.create', 'auth.login'])
    expect(new Set(everything.map((e) => e.id)).size).toBe(everything.length)
  })

  it('filters by action, actor and time (since is inclusive; any offset is accepted)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const other = await createSignedInUser(t)
    t.clock.advance(60)
    const boundary = t.clock.now()
    const mine = await createOrganization(t, admin.token)
    const theirs = await createOrganization(t, other.token)

    const creations = (await auditLog(admin.token, '?action=org.create&limit=200')).json()
      .items as AuditItem[]
    expect(creations.every((e) => e.action === 'org.create')).toBe(true)
    expect(creations.map((e) => e.target_id)).toEqual(expect.arrayContaining([mine.id, theirs.id]))

    const byOther = (await auditLog(admin.token, `?actor_id=${other.user.id}`)).json()
      .items as AuditItem[]
    expect(byOther.map((e) => e.action)).toEqual(['org.create', 'auth.login'])

    // The same instant written with a +02:00 offset.
    const local = new Date(boundary.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00')
    const since = (
      await auditLog(admin.token, `?action=org.create&since=${encodeURIComponent(local)}`)
    ).json().items as AuditItem[]
    expect(since.map((e) => e.target_id).sort()).toEqual([mine.id, theirs.id].sort())
    expect(since.every((e) => e.at >= boundary.toISOString())).toBe(true)

    expect((await auditLog(admin.token, '?action=no.such.action')).json()).toEqual({
      items: [],
      next_cursor: null,
    })
    expect((await auditLog(admin.token, '?actor_id=not-an-id')).json().items).toEqual([])
  })

  // The console's action picker offers areas as well as actions.
  it('filters by action prefix: an area selects its actions, a whole action itself', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const org = await createOrganization(t, admin.token, 'Prefixed')
    await t.app.inject({
      method: 'PATCH',
      url: `/api/organizations/${org.id}`,
      headers: bearer(admin.token),
      payload: { name: 'Prefixed 2' },
    })
    const actions = async (action: string) =>
      (
        (
          await auditLog(
            admin.token,
            `?actor_id=${admin.user.id}&action=${encodeURIComponent(action)}`,
          )
        ).json().items as AuditItem[]
      ).map((e) => e.action)
    expect(await actions('org')).toEqual(['org.update', 'org.create'])
    expect(await actions('org.')).toEqual(['org.update', 'org.create'])
    expect(await actions('org.cr')).toEqual(['org.create'])
    expect(await actions('org.create')).toEqual(['org.create'])
    expect(await actions('auth')).toEqual(['auth.login'])
    // Case-sensitive on both engines, and the LIKE wildcards mean nothing.
    expect(await actions('ORG')).toEqual([])
    expect(await actions('%')).toEqual([])
    expect(await actions('org_')).toEqual([])
  })

  it("names each target as it is called now (a user's email, a token's or team's name), null when it has none or is gone", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const longName = 'n'.repeat(100)
    const token = await createApiTokenFor(t, admin.token, longName)
    const send = (method: 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: bearer(admin.token), ...(payload && { payload }) })
    const team = (await send('POST', '/api/admin/teams', { name: 'Labelled team' })).json()
    const user = (
      await send('POST', '/api/admin/users', {
        email: 'labelled@example.com',
        name: 'Labelled',
        password: 'a long enough passphrase 7',
      })
    ).json()
    const gone = (await send('POST', '/api/admin/teams', { name: 'Gone team' })).json()
    await send('DELETE', `/api/admin/teams/${gone.id}`)

    const items = (await auditLog(admin.token, `?actor_id=${admin.user.id}&limit=50`)).json()
      .items as Array<AuditItem & { target_type: string | null; target_label: string | null }>
    const labelOf = (action: string, id: string) =>
      items.find((e) => e.action === action && e.target_id === id)?.target_label
    expect(labelOf('token.create', token.id)).toBe(longName)
    expect(labelOf('team.create', team.id)).toBe('Labelled team')
    expect(labelOf('admin.user_create', user.id)).toBe('labelled@example.com')
    expect(labelOf('team.create', gone.id)).toBeNull()
    expect(labelOf('team.delete', gone.id)).toBeNull()
    expect(items.find((e) => e.action === 'auth.login')?.target_label).toBe(admin.email)
  })

  it('refuses a malformed since, limit or cursor (400)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    for (const query of [
      '?since=yesterday',
      '?since=2026-13-45T00:00:00Z',
      '?limit=201',
      '?cursor=nope',
      '?verb=x',
    ]) {
      const response = await auditLog(admin.token, query)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
    }
  })
})

describe('every change of organizations and administration is audited, without secrets', () => {
  it('writes one event per change', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const send = (
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      payload?: Record<string, unknown>,
    ) => t.app.inject({ method, url, headers: bearer(admin.token), ...(payload && { payload }) })
    const secretPassword = 'an admin-chosen passphrase 5'

    const org = await createOrganization(t, admin.token)
    await send('PATCH', `/api/organizations/${org.id}`, { name: 'Changed' })
    const member = await createSignedInUser(t)
    await addOrgMember(t, admin.token, org.id, member, 'member')
    await send('PATCH', `/api/organizations/${org.id}/members/${member.user.id}`, { role: 'admin' })
    await send('DELETE', `/api/organizations/${org.id}/members/${member.user.id}`)
    await send('DELETE', `/api/organizations/${org.id}`)

    const created = (
      await send('POST', '/api/admin/users', {
        email: `audit-${Date.now()}@example.com`,
        name: 'Audit',
        password: secretPassword,
      })
    ).json()
    await send('PUT', `/api/admin/users/${created.id}`, {
      password: `${secretPassword}!`,
      disabled: true,
      current_password: DEFAULT_PASSWORD,
    })
    await send('DELETE', `/api/admin/users/${created.id}`)

    const team = (
      await send('POST', '/api/admin/teams', { name: `Audit team ${Date.now()}` })
    ).json()
    await send('PATCH', `/api/admin/teams/${team.id}`, { description: 'now described' })
    await send('POST', `/api/admin/teams/${team.id}/members`, { user_id: member.user.id })
    await send('DELETE', `/api/admin/teams/${team.id}/members/${member.user.id}`)
    await send('DELETE', `/api/admin/teams/${team.id}`)

    const response = await auditLog(admin.token, `?actor_id=${admin.user.id}&limit=200`)
    const actions = (response.json().items as AuditItem[]).map((e) => e.action).reverse()
    expect(actions).toEqual([
      'auth.login',
      'org.create',
      'org.update',
      'org.invitation_create',
      'org.member_role_change',
      'org.member_remove',
      'org.delete',
      'admin.user_create',
      'admin.user_update',
      'admin.user_disable',
      'admin.user_delete',
      'team.create',
      'team.update',
      'team.member_add',
      'team.member_remove',
      'team.delete',
    ])
    expect(response.body).not.toContain(secretPassword)
    expect(response.body).not.toContain(admin.token)
    expect(response.body).not.toContain('$argon2')
  })
})
