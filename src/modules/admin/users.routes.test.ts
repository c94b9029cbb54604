import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  uniqueEmail,
} from '../../../test/helpers/factories.js'
import { createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const ADMIN_USER_FIELDS = [
  'id',
  'email',
  'name',
  'user_key',
  'is_admin',
  'language',
  'theme',
  'ai_suggestions_enabled',
  'email_pending',
  'oidc_provider',
  'oidc_sub',
  'has_password',
  'created_at',
  'updated_at',
  'disabled',
  'mfa_enabled',
  'last_login_at',
].sort()

const me = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })
const createAsAdmin = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/admin/users', headers: bearer(token), payload })
const getAsAdmin = (token: string, id: string) =>
  t.app.inject({ method: 'GET', url: `/api/admin/users/${id}`, headers: bearer(token) })
const put = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/users/${id}`, headers: bearer(token), payload })
const remove = (token: string, id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/admin/users/${id}`, headers: bearer(token) })
const list = (token: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/admin/users${query}`, headers: bearer(token) })

const auditActions = async (targetId: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', targetId)
      .orderBy('at')
      .orderBy('id')
      .execute()
  ).map((e) => e.action)

describe('POST /api/admin/users', () => {
  it('creates a user with a password, who can then sign in: the AdminUser fields', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const email = uniqueEmail('created')
    const response = await createAsAdmin(admin.token, {
      email: `  ${email.toUpperCase()}`,
      name: ' Created User ',
      password: 'a fresh passphrase 7',
    })
    expect(response.statusCode).toBe(201)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual([...ADMIN_USER_FIELDS, 'welcome'].sort())
    // A password was given: no welcome link.
    expect(body.welcome).toBeNull()
    expect(body).toMatchObject({
      email,
      name: 'Created User',
      is_admin: false,
      has_password: true,
      disabled: false,
      mfa_enabled: false,
      last_login_at: null,
      language: 'en',
      theme: 'auto',
      email_pending: null,
    })
    expect(body.created_at).toBe(body.updated_at)
    await expect(login(t, email, 'a fresh passphrase 7')).resolves.toBeTruthy()
    expect((await getAsAdmin(admin.token, body.id)).json().last_login_at).toEqual(
      expect.any(String),
    )
    expect(await auditActions(body.id)).toContain('admin.user_create')
  })

  it('creates a user without a password (OIDC or a later reset), who cannot sign in with one', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const email = uniqueEmail('oidc')
    const response = await createAsAdmin(admin.token, {
      email,
      name: 'No Password',
      is_admin: true,
      current_password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toMatchObject({ has_password: false, is_admin: true })
    await expect(login(t, email, DEFAULT_PASSWORD)).rejects.toThrow(/401/)
    // Without mail on the instance, the welcome link is in the answer, to pass on.
    expect(response.json().welcome).toEqual({
      mail: 'not_configured',
      link: expect.stringMatching(/^http:\/\/switchboard\.test\/reset-password\?token=/),
      expires_at: expect.any(String),
    })
  })

  it('refuses a taken email (409 on email), a weak password and bad fields (400)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const taken = await createAsAdmin(admin.token, {
      email: admin.email.toUpperCase(),
      name: 'Dup',
    })
    expectReason(taken, 409, 'ALREADY_EXISTS')
    expect(taken.json().details).toBe('email')
    const weak = await createAsAdmin(admin.token, {
      email: uniqueEmail(),
      name: 'Weak',
      password: 'password',
    })
    expect(weak.statusCode).toBe(400)
    expect(weak.json().details).toEqual([
      { field: 'password', message: expect.any(String), code: 'common_password' },
    ])
    const bad = await createAsAdmin(admin.token, { email: 'nope', name: '', disabled: true })
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['disabled', 'email', 'name'])
  })
})

describe('GET /api/admin/users', () => {
  it('lists newest first with cursor pages, and searches email or name ignoring case', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const tag = `zq${Date.now().toString(36)}`
    const first = await createUser(t, { name: `Ada ${tag.toUpperCase()} Lovelace` })
    t.clock.advance(1)
    const second = await createUser(t, { email: `${tag}-grace@example.com`, name: 'Grace Hopper' })
    t.clock.advance(1)
    const third = await createUser(t, { name: `Literal 100%_${tag}` })

    const found = (await list(admin.token, `?q=${tag.toUpperCase()}`)).json()
    expect(found.items.map((u: { id: string }) => u.id)).toEqual([
      third.user.id,
      second.user.id,
      first.user.id,
    ])
    expect(Object.keys(found.items[0]).sort()).toEqual(ADMIN_USER_FIELDS)

    const page1 = (await list(admin.token, `?q=${tag}&limit=2`)).json()
    expect(page1.items).toHaveLength(2)
    const page2 = (await list(admin.token, `?q=${tag}&limit=2&cursor=${page1.next_cursor}`)).json()
    expect(page2).toEqual({
      items: [expect.objectContaining({ id: first.user.id })],
      next_cursor: null,
    })

    // LIKE wildcards in q are plain characters.
    expect(
      (await list(admin.token, `?q=${encodeURIComponent('100%_')}`))
        .json()
        .items.map((u: { id: string }) => u.id),
    ).toEqual([third.user.id])
    expect(
      (await list(admin.token, `?q=${encodeURIComponent('%')}`))
        .json()
        .items.map((u: { id: string }) => u.id),
    ).toEqual([third.user.id])
    expect((await list(admin.token, '?q=no-such-user-anywhere')).json()).toEqual({
      items: [],
      next_cursor: null,
    })

    const everyone = (await list(admin.token, '?limit=200')).json().items
    expect(everyone.map((u: { created_at: string }) => u.created_at)).toEqual(
      [...everyone.map((u: { created_at: string }) => u.created_at)].sort().reverse(),
    )
    expect((await list(admin.token, '?limit=0')).statusCode).toBe(400)
  })
})

describe('GET /api/admin/users/{id}', () => {
  it('shows mfa_enabled, and answers 404 for unknown or malformed ids', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    expect((await getAsAdmin(admin.token, user.user.id)).json().mfa_enabled).toBe(false)
    await enableMfa(t, user)
    expect((await getAsAdmin(admin.token, user.user.id)).json().mfa_enabled).toBe(true)
    expectReason(
      await getAsAdmin(admin.token, '0190a6b2-0000-7000-8000-000000000000'),
      404,
      'NOT_FOUND',
    )
    expectReason(await getAsAdmin(admin.token, 'x'), 404, 'NOT_FOUND')
  })
})

describe('PUT /api/admin/users/{id}', () => {
  it('updates any of the administrable fields and answers the whole AdminUser', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const email = uniqueEmail('renamed')
    t.clock.advance(1)
    const response = await put(admin.token, user.user.id, {
      email: email.toUpperCase(),
      name: 'Renamed',
      language: 'fr',
      theme: 'dark',
      is_admin: true,
      current_password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({
      id: user.user.id,
      email,
      name: 'Renamed',
      language: 'fr',
      theme: 'dark',
      is_admin: true,
      disabled: false,
    })
    expect(body.updated_at > body.created_at).toBe(true)
    // Not a password change: the user's session lives on.
    expect((await me(user.token)).statusCode).toBe(200)
    const event = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'admin.user_update')
      .where('target_id', '=', user.user.id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(event.metadata)).toEqual({
      fields: ['email', 'is_admin', 'language', 'name', 'theme'],
      sessions_revoked: 0,
      tokens_revoked: 0,
    })
  })

  it('refuses an empty body, unknown fields and bad values (400), a taken email (409), an unknown user (404)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createUser(t)
    expect((await put(admin.token, user.user.id, {})).json().details).toEqual([
      { field: 'body', message: 'must contain at least one field', code: 'too_few_fields' },
    ])
    for (const payload of [
      { user_key: 'x' },
      { theme: 'neon' },
      { disabled: 'yes' },
      { language: 'english' },
      { ai_suggestions_enabled: false },
    ]) {
      expectReason(await put(admin.token, user.user.id, payload), 400, 'VALIDATION_FAILED')
    }
    const taken = await put(admin.token, user.user.id, {
      email: admin.email,
      current_password: DEFAULT_PASSWORD,
    })
    expectReason(taken, 409, 'ALREADY_EXISTS')
    expect(taken.json().details).toBe('email')
    expectReason(await put(admin.token, 'no-such-user', { name: 'X' }), 404, 'NOT_FOUND')
  })

  it('sets a password under the password policy and signs the user out everywhere', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const weak = await put(admin.token, user.user.id, {
      password: user.email,
      current_password: DEFAULT_PASSWORD,
    })
    expect(weak.json().details).toEqual([
      { field: 'password', message: expect.any(String), code: 'same_as_email' },
    ])
    expect(
      (
        await put(admin.token, user.user.id, {
          password: 'reset by the admin 9',
          current_password: DEFAULT_PASSWORD,
        })
      ).statusCode,
    ).toBe(200)
    expectReason(await me(user.token), 401, 'UNAUTHORIZED')
    await expect(login(t, user.email, DEFAULT_PASSWORD)).rejects.toThrow(/401/)
    await expect(login(t, user.email, 'reset by the admin 9')).resolves.toBeTruthy()
    const rows = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('target_id', '=', user.user.id)
      .execute()
    expect(JSON.stringify(rows)).not.toContain('reset by the admin 9')
  })

  it('sends administrators to the self-service routes for their own credentials (409 SELF_SERVICE_REQUIRED)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const own = await put(admin.token, admin.user.id, {
      password: 'my own new passphrase',
      current_password: DEFAULT_PASSWORD,
    })
    expectReason(own, 409, 'SELF_SERVICE_REQUIRED')
    expect(own.json().details).toContain('POST /api/users/me/password')
    expect((await put(admin.token, admin.user.id, { name: 'Still allowed' })).statusCode).toBe(200)
  })
})

describe('disabling a user', () => {
  it('ends their sessions and revokes their API tokens: enabling again brings neither back', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const { token: apiToken } = await createApiTokenFor(t, user.token)
    expect((await me(apiToken)).statusCode).toBe(200)

    const disabled = await put(admin.token, user.user.id, {
      disabled: true,
      current_password: DEFAULT_PASSWORD,
    })
    expect(disabled.statusCode).toBe(200)
    expect(disabled.json().disabled).toBe(true)
    expectReason(await me(user.token), 401, 'UNAUTHORIZED')
    expectReason(await me(apiToken), 401, 'UNAUTHORIZED')
    await expect(login(t, user.email, DEFAULT_PASSWORD)).rejects.toThrow(/401/)
    const live = await t.deps.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.user.id)
      .where('revoked_at', 'is', null)
      .execute()
    expect(live).toEqual([])

    expect(
      (
        await put(admin.token, user.user.id, {
          disabled: false,
          current_password: DEFAULT_PASSWORD,
        })
      ).json().disabled,
    ).toBe(false)
    // Revoked, as SCIM's deactivation revokes them: a re-enabled account starts without tokens.
    expectReason(await me(apiToken), 401, 'UNAUTHORIZED')
    expect((await me(user.token)).statusCode).toBe(401)
    const update = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('target_id', '=', user.user.id)
      .where('action', '=', 'admin.user_update')
      .orderBy('at')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(String(update.metadata))).toMatchObject({ tokens_revoked: 1 })
    expect(await auditActions(user.user.id)).toEqual(
      expect.arrayContaining(['admin.user_update', 'admin.user_disable', 'admin.user_enable']),
    )
  })
})

describe('DELETE /api/admin/users/{id}', () => {
  it("deletes another user's account with their sessions and tokens", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const { token: apiToken } = await createApiTokenFor(t, user.token)
    expect((await remove(admin.token, user.user.id)).statusCode).toBe(204)
    expect((await me(user.token)).statusCode).toBe(401)
    expect((await me(apiToken)).statusCode).toBe(401)
    expectReason(await getAsAdmin(admin.token, user.user.id), 404, 'NOT_FOUND')
    expectReason(await remove(admin.token, user.user.id), 404, 'NOT_FOUND')
    expect(await auditActions(user.user.id)).toContain('admin.user_delete')
  })

  it('refuses your own account (409 SELF_DELETION) and the only owner of an organization (409 LAST_OWNER)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const self = await remove(admin.token, admin.user.id)
    expectReason(self, 409, 'SELF_DELETION')
    expect(self.json().message).toContain('DELETE /api/users/me')
    const owner = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token)
    const refused = await remove(admin.token, owner.user.id)
    expectReason(refused, 409, 'LAST_OWNER')
    expect(refused.json().details).toContain(org.slug)
    expect((await me(owner.token)).statusCode).toBe(200)
  })
})

describe('the last active administrator', () => {
  const solo = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
  const putOn = (token: string, id: string, payload: Record<string, unknown>) =>
    solo.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${id}`,
      headers: bearer(token),
      payload,
    })
  const activeAdmins = async () =>
    (
      await solo.deps.db
        .selectFrom('users')
        .select('id')
        .where('is_admin', '=', true)
        .where('disabled', '=', false)
        .execute()
    ).length

  it('cannot demote or disable themselves (409 SELF_SERVICE_REQUIRED), so the last one stays', async () => {
    const admin = await createSignedInUser(solo, { isAdmin: true })
    expectReason(
      await putOn(admin.token, admin.user.id, {
        is_admin: false,
        current_password: DEFAULT_PASSWORD,
      }),
      409,
      'SELF_SERVICE_REQUIRED',
    )
    expectReason(
      await putOn(admin.token, admin.user.id, {
        disabled: true,
        current_password: DEFAULT_PASSWORD,
      }),
      409,
      'SELF_SERVICE_REQUIRED',
    )
    const dormant = await createUser(solo, { isAdmin: true })
    expect(
      (
        await putOn(admin.token, dormant.user.id, {
          disabled: true,
          current_password: DEFAULT_PASSWORD,
        })
      ).statusCode,
    ).toBe(200)
    expect(await activeAdmins()).toBeGreaterThanOrEqual(1)
  })

  it('two administrators demoting each other at once leave one', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        createSignedInUser(solo, { isAdmin: true }),
        createSignedInUser(solo, { isAdmin: true }),
      ])
      // Only a and b remain active administrators.
      await solo.deps.db
        .updateTable('users')
        .set({ is_admin: false })
        .where('id', 'not in', [a.user.id, b.user.id])
        .execute()
      const results = await Promise.all([
        putOn(a.token, b.user.id, { is_admin: false, current_password: DEFAULT_PASSWORD }),
        putOn(b.token, a.user.id, { disabled: true, current_password: DEFAULT_PASSWORD }),
      ])
      // The loser is refused by the invariant (409), or — when the winner committed before the
      // loser's request was authenticated — as no longer an administrator (403) or signed out
      // (401).
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1)
      expect([401, 403, 409]).toContain(results.find((r) => r.statusCode !== 200)!.statusCode)
      expect(await activeAdmins()).toBe(1)
    }
  })

  it('two administrators deleting each other at once leave one', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        createSignedInUser(solo, { isAdmin: true }),
        createSignedInUser(solo, { isAdmin: true }),
      ])
      await solo.deps.db
        .updateTable('users')
        .set({ is_admin: false })
        .where('id', 'not in', [a.user.id, b.user.id])
        .execute()
      const results = await Promise.all([
        solo.app.inject({
          method: 'DELETE',
          url: `/api/admin/users/${b.user.id}`,
          headers: bearer(a.token),
        }),
        solo.app.inject({
          method: 'DELETE',
          url: `/api/admin/users/${a.user.id}`,
          headers: bearer(b.token),
        }),
      ])
      expect(results.filter((r) => r.statusCode === 204)).toHaveLength(1)
      expect([401, 409]).toContain(results.find((r) => r.statusCode !== 204)!.statusCode)
      expect(await activeAdmins()).toBe(1)
    }
  })
})
