import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
})

const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
) =>
  t.app.inject({
    method,
    url: `/api/admin/teams${url}`,
    headers: bearer(admin.token),
    ...(payload && { payload }),
  })

async function newTeam(name: string, description?: string): Promise<{ id: string }> {
  const response = await call('POST', '', {
    name,
    ...(description !== undefined && { description }),
  })
  if (response.statusCode !== 201) throw new Error(`team creation failed: ${response.body}`)
  return response.json()
}

describe('teams', () => {
  it('creates a team: exactly the Team fields', async () => {
    const response = await call('POST', '', {
      name: '  Platform  ',
      description: 'Runs the platform',
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Platform',
      description: 'Runs the platform',
      member_count: 0,
      created_at: expect.any(String),
    })
    expect((await call('GET', `/${response.json().id}`)).json()).toEqual(response.json())
    expect((await call('POST', '', { name: 'No description' })).json().description).toBeNull()
  })

  it('keeps names unique ignoring case (409 on name), also when renaming', async () => {
    await newTeam('Billing Ops')
    const dup = await call('POST', '', { name: 'BILLING OPS' })
    expectReason(dup, 409, 'ALREADY_EXISTS')
    expect(dup.json().details).toBe('name')
    const other = await newTeam('Support')
    const rename = await call('PATCH', `/${other.id}`, { name: 'billing ops' })
    expectReason(rename, 409, 'ALREADY_EXISTS')
    // Changing only the case of its own name is fine.
    expect((await call('PATCH', `/${other.id}`, { name: 'SUPPORT' })).json().name).toBe('SUPPORT')
  })

  it('validates names, descriptions and empty updates', async () => {
    const team = await newTeam('Validation')
    for (const payload of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'ok', description: 'y'.repeat(501) },
      { name: 'ok', color: 'red' },
    ]) {
      expectReason(await call('POST', '', payload), 400, 'VALIDATION_FAILED')
    }
    expect((await call('PATCH', `/${team.id}`, {})).json().details).toEqual([
      { field: 'body', message: 'must contain at least one field', code: 'too_few_fields' },
    ])
  })

  it('updates the description (null clears it) and answers 404 for unknown teams', async () => {
    const team = await newTeam('Docs', 'Writes docs')
    expect((await call('PATCH', `/${team.id}`, { description: null })).json()).toMatchObject({
      name: 'Docs',
      description: null,
    })
    expectReason(await call('PATCH', '/no-such-team', { name: 'X' }), 404, 'NOT_FOUND')
    expectReason(await call('GET', '/no-such-team'), 404, 'NOT_FOUND')
    expectReason(await call('DELETE', '/no-such-team'), 404, 'NOT_FOUND')
  })

  it('lists teams by name ignoring case, with cursor pages', async () => {
    const page = async (query: string) => (await call('GET', query)).json()
    const all = await page('?limit=200')
    const names = all.items.map((team: { name: string }) => team.name)
    expect(names).toEqual(
      [...names].sort((a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
    )
    const first = await page('?limit=2')
    const second = await page(`?limit=2&cursor=${first.next_cursor}`)
    expect([...first.items, ...second.items].map((team: { id: string }) => team.id)).toEqual(
      all.items.slice(0, 4).map((team: { id: string }) => team.id),
    )
  })

  it('deletes a team with its memberships, not its users', async () => {
    const team = await newTeam('Short lived')
    const user = await createUser(t)
    await call('POST', `/${team.id}/members`, { user_id: user.user.id })
    expect((await call('DELETE', `/${team.id}`)).statusCode).toBe(204)
    expectReason(await call('GET', `/${team.id}`), 404, 'NOT_FOUND')
    expect(
      await t.deps.db
        .selectFrom('team_members')
        .select('user_id')
        .where('team_id', '=', team.id)
        .execute(),
    ).toEqual([])
    expect(
      await t.deps.db
        .selectFrom('users')
        .select('id')
        .where('id', '=', user.user.id)
        .executeTakeFirst(),
    ).toBeTruthy()
    const actions = (
      await t.deps.db
        .selectFrom('audit_events')
        .select('action')
        .where('target_id', '=', team.id)
        .orderBy('at')
        .orderBy('id')
        .execute()
    ).map((e) => e.action)
    expect(actions).toEqual(['team.create', 'team.member_add', 'team.delete'])
  })
})

describe('team members', () => {
  it('adds users by user_id or by email (any case), counts and lists them by name', async () => {
    const team = await newTeam('Members')
    const zoe = await createUser(t, { name: 'zoe Zed' })
    const abe = await createUser(t, { name: 'Abe Able' })
    const byId = await call('POST', `/${team.id}/members`, { user_id: zoe.user.id })
    expect(byId.statusCode).toBe(201)
    expect(byId.json()).toEqual({
      user_id: zoe.user.id,
      email: zoe.email,
      name: 'zoe Zed',
      added_at: expect.any(String),
    })
    expect(
      (await call('POST', `/${team.id}/members`, { email: ` ${abe.email.toUpperCase()} ` })).json()
        .user_id,
    ).toBe(abe.user.id)

    expect((await call('GET', `/${team.id}`)).json().member_count).toBe(2)
    const list = (await call('GET', `/${team.id}/members`)).json()
    expect(list.items.map((m: { name: string }) => m.name)).toEqual(['Abe Able', 'zoe Zed'])
    const first = (await call('GET', `/${team.id}/members?limit=1`)).json()
    expect(
      (await call('GET', `/${team.id}/members?limit=1&cursor=${first.next_cursor}`)).json(),
    ).toEqual({
      items: [list.items[1]],
      next_cursor: null,
    })
  })

  it('needs exactly one of user_id and email (400), a known team and user (404), and no duplicate (409)', async () => {
    const team = await newTeam('Rules')
    const user = await createUser(t)
    for (const payload of [{}, { user_id: user.user.id, email: user.email }]) {
      const response = await call('POST', `/${team.id}/members`, payload)
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details).toEqual([
        { field: 'body', message: 'must contain exactly one of user_id, email', code: 'invalid' },
      ])
    }
    expectReason(
      await call('POST', `/${team.id}/members`, { email: 'not-an-email' }),
      400,
      'VALIDATION_FAILED',
    )
    expectReason(
      await call('POST', `/${team.id}/members`, { user_id: 'no-such-user' }),
      404,
      'NOT_FOUND',
    )
    expectReason(
      await call('POST', `/${team.id}/members`, { email: 'nobody@example.com' }),
      404,
      'NOT_FOUND',
    )
    expectReason(
      await call('POST', '/no-such-team/members', { user_id: user.user.id }),
      404,
      'NOT_FOUND',
    )
    expectReason(await call('GET', '/no-such-team/members'), 404, 'NOT_FOUND')
    expect((await call('POST', `/${team.id}/members`, { user_id: user.user.id })).statusCode).toBe(
      201,
    )
    const dup = await call('POST', `/${team.id}/members`, { email: user.email })
    expectReason(dup, 409, 'ALREADY_EXISTS')
    expect(dup.json().details).toBe('user_id')
  })

  it('removes a member (204), then 404; a deleted user leaves their teams', async () => {
    const team = await newTeam('Leaving')
    const [a, b] = await Promise.all([createUser(t), createUser(t)])
    for (const user of [a, b]) await call('POST', `/${team.id}/members`, { user_id: user.user.id })
    expect((await call('DELETE', `/${team.id}/members/${a.user.id}`)).statusCode).toBe(204)
    expectReason(await call('DELETE', `/${team.id}/members/${a.user.id}`), 404, 'NOT_FOUND')
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/admin/users/${b.user.id}`,
          headers: bearer(admin.token),
        })
      ).statusCode,
    ).toBe(204)
    expect((await call('GET', `/${team.id}`)).json().member_count).toBe(0)
    const actions = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', team.id)
      .where('action', '=', 'team.member_remove')
      .execute()
    expect(actions.map((e) => JSON.parse(e.metadata))).toEqual([{ user_id: a.user.id }])
  })
  // A person's user page lists their teams.
  it("lists one person's teams by name with member_id, paged; nobody's teams for an unknown id", async () => {
    const [person, other] = await Promise.all([createUser(t), createUser(t)])
    const [zeta, alpha, elsewhere] = [
      await newTeam('Zeta of person'),
      await newTeam('alpha of person'),
      await newTeam('Not theirs'),
    ]
    for (const team of [zeta, alpha])
      await call('POST', `/${team.id}/members`, { user_id: person.user.id })
    await call('POST', `/${elsewhere.id}/members`, { user_id: other.user.id })
    const first = (await call('GET', `?member_id=${person.user.id}&limit=1`)).json()
    expect(first.items.map((team: { name: string }) => team.name)).toEqual(['alpha of person'])
    const second = (
      await call('GET', `?member_id=${person.user.id}&limit=1&cursor=${first.next_cursor}`)
    ).json()
    expect(second).toEqual({
      items: [expect.objectContaining({ name: 'Zeta of person', member_count: 1 })],
      next_cursor: null,
    })
    expect((await call('GET', '?member_id=nobody')).json()).toEqual({
      items: [],
      next_cursor: null,
    })
  })
})
