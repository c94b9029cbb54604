import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  closeReauthenticationWindows,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  login,
  openSessionFor,
} from '../../../test/helpers/factories.js'

const t = useTestApp()

const me = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })

describe('GET /api/users/me', () => {
  it("returns exactly the seed's 12 fields with their types", async () => {
    const { token, user } = await createSignedInUser(t, { name: 'Grace Hopper' })
    const response = await me(token)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(
      [
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
      ].sort(),
    )
    expect(body).toEqual({
      id: user.id,
      email: user.email,
      name: 'Grace Hopper',
      user_key: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{8}$/),
      is_admin: false,
      language: 'en',
      theme: 'auto',
      ai_suggestions_enabled: true,
      email_pending: null,
      oidc_provider: null,
      oidc_sub: null,
      has_password: true,
    })
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })

  it('reports real booleans for an administrator without a password (e.g. OIDC-only)', async () => {
    const { user } = await createUser(t, { isAdmin: true, password: null })
    const body = (await me(await openSessionFor(t, user.id))).json()
    expect(body.is_admin).toBe(true)
    expect(body.has_password).toBe(false)
  })

  it('does not accept a validly signed JWT whose session does not exist', async () => {
    const { user } = await createUser(t)
    const token = await t.deps.accessTokens.issue(
      { sub: user.id, sid: 'no-such-session' },
      new Date(),
      new Date(Date.now() + 60_000),
    )
    expect((await me(token)).statusCode).toBe(401)
  })
})

describe('PATCH /api/users/me', () => {
  it('updates name, language, theme and the AI preference, returning the whole user', async () => {
    const { token } = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(token),
      payload: {
        name: '  Ada Lovelace  ',
        language: 'de-AT',
        theme: 'dark',
        ai_suggestions_enabled: false,
      },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      name: 'Ada Lovelace',
      language: 'de-AT',
      theme: 'dark',
      ai_suggestions_enabled: false,
    })
    expect((await me(token)).json()).toMatchObject({
      language: 'de-AT',
      ai_suggestions_enabled: false,
    })
  })

  it('validates language and theme, listing each bad field', async () => {
    const { token } = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(token),
      payload: { language: 'english', theme: 'neon' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details).toEqual([
      { field: 'language', message: 'must be a language tag such as en or de-AT', code: 'pattern' },
      {
        field: 'theme',
        message: 'must be one of: auto, light, dark',
        code: 'not_one_of',
        allowed: ['auto', 'light', 'dark'],
      },
    ])
  })

  it('rejects names that are blank or hold control characters, and unknown fields', async () => {
    const { token } = await createSignedInUser(t)
    for (const payload of [
      { name: '   ' },
      { name: 'bell\u0007' },
      { email: 'x@example.com' },
      { user_key: 'AAAAAAAA' },
    ]) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        headers: bearer(token),
        payload,
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
    }
  })

  it('rejects an empty update', async () => {
    const { token } = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(token),
      payload: {},
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().reason).toBe('VALIDATION_FAILED')
  })
})

describe('POST /api/users/me/password', () => {
  const change = (token: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/users/me/password', headers: bearer(token), payload })

  it('needs the current password: missing → PASSWORD_REQUIRED, wrong → INVALID_PASSWORD (400, not 401)', async () => {
    const { token, user } = await createSignedInUser(t)
    // Outside the re-authentication window its sign-in opened
    // (test/security/reauthentication-window.test.ts).
    await closeReauthenticationWindows(t, user.id)
    const missing = await change(token, { new_password: 'another fine passphrase' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().reason).toBe('PASSWORD_REQUIRED')
    const wrong = await change(token, {
      current_password: 'not it at all',
      new_password: 'another fine passphrase',
    })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().reason).toBe('INVALID_PASSWORD')
  })

  it('applies the password policy to the new password', async () => {
    const { token, email } = await createSignedInUser(t)
    for (const newPassword of ['short', 'qwertyuiop', email]) {
      const response = await change(token, {
        current_password: DEFAULT_PASSWORD,
        new_password: newPassword,
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().details[0].field).toBe('new_password')
    }
  })

  it('changes the password and revokes every other session, keeping this one', async () => {
    const phone = await createSignedInUser(t)
    const laptop = await login(t, phone.email, DEFAULT_PASSWORD)
    const response = await change(laptop.token, {
      current_password: DEFAULT_PASSWORD,
      new_password: 'a brand new passphrase',
    })
    expect(response.statusCode).toBe(204)
    expect((await me(phone.token)).statusCode).toBe(401)
    expect((await me(laptop.token)).statusCode).toBe(200)
    await expect(login(t, phone.email, DEFAULT_PASSWORD)).rejects.toThrow(/401/)
    await expect(login(t, phone.email, 'a brand new passphrase')).resolves.toBeTruthy()
  })

  it('accepts Unicode passwords, normalised to NFKC', async () => {
    const { token, email } = await createSignedInUser(t)
    const composed = 'caf\u00e9 au lait, s\u2019il vous pla\u00eet'
    const decomposed = composed.normalize('NFD')
    expect(
      (await change(token, { current_password: DEFAULT_PASSWORD, new_password: decomposed }))
        .statusCode,
    ).toBe(204)
    await expect(login(t, email, composed)).resolves.toBeTruthy()
  })

  it('budgets wrong current passwords per account', async () => {
    const { token } = await createSignedInUser(t)
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await change(token, {
            current_password: `guess number ${i}`,
            new_password: 'whatever it is 1',
          })
        ).statusCode,
      ).toBe(400)
    }
    const blocked = await change(token, {
      current_password: DEFAULT_PASSWORD,
      new_password: 'whatever it is 1',
    })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().retryAfter).toBeGreaterThan(0)
  })
})

describe('DELETE /api/users/me', () => {
  const remove = (token: string, payload?: Record<string, unknown>) =>
    t.app.inject({
      method: 'DELETE',
      url: '/api/users/me',
      headers: bearer(token),
      ...(payload && { payload }),
    })

  it('needs the password when the account has one (outside the re-authentication window)', async () => {
    const { token, user } = await createSignedInUser(t)
    await closeReauthenticationWindows(t, user.id)
    expect((await remove(token)).json().reason).toBe('PASSWORD_REQUIRED')
    expect((await remove(token, { password: 'wrong password!' })).json().reason).toBe(
      'INVALID_PASSWORD',
    )
    expect((await me(token)).statusCode).toBe(200)
  })

  it('deletes the account and ends its sessions', async () => {
    const { token, user } = await createSignedInUser(t)
    const response = await remove(token, { password: DEFAULT_PASSWORD })
    expect(response.statusCode).toBe(204)
    expect((await me(token)).statusCode).toBe(401)
    const row = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', user.id)
      .executeTakeFirst()
    expect(row).toBeUndefined()
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', user.id)
      .execute()
    expect(audit.map((a) => a.action)).toContain('user.delete')
  })
})

describe('the last active administrator', () => {
  const fresh = useTestApp()

  it('cannot delete their account; another admin can once a second one exists', async () => {
    const first = await createSignedInUser(fresh, { isAdmin: true })
    const alone = await fresh.app.inject({
      method: 'DELETE',
      url: '/api/users/me',
      headers: bearer(first.token),
      payload: { password: DEFAULT_PASSWORD },
    })
    expect(alone.statusCode).toBe(409)
    expect(alone.json()).toMatchObject({ reason: 'LAST_ADMIN', details: expect.any(String) })

    const second = await createSignedInUser(fresh, { isAdmin: true })
    const deleted = await fresh.app.inject({
      method: 'DELETE',
      url: '/api/users/me',
      headers: bearer(first.token),
      payload: { password: DEFAULT_PASSWORD },
    })
    expect(deleted.statusCode).toBe(204)
    void second
  })

  it('keeps one administrator when the last two delete themselves at the same time', async () => {
    const admins = await fresh.deps.db
      .selectFrom('users')
      .select('id')
      .where('is_admin', '=', true)
      .execute()
    expect(admins).toHaveLength(1)
    const other = await createSignedInUser(fresh, { isAdmin: true })
    const remaining = await fresh.deps.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('id', '=', admins[0]!.id)
      .executeTakeFirstOrThrow()
    const first = await login(fresh, remaining.email, DEFAULT_PASSWORD)
    const results = await Promise.all(
      [first.token, other.token].map((token) =>
        fresh.app.inject({
          method: 'DELETE',
          url: '/api/users/me',
          headers: bearer(token),
          payload: { password: DEFAULT_PASSWORD },
        }),
      ),
    )
    expect(results.map((r) => r.statusCode).sort()).toEqual([204, 409])
    const left = await fresh.deps.db
      .selectFrom('users')
      .select('id')
      .where('is_admin', '=', true)
      .execute()
    expect(left).toHaveLength(1)
  })
})
