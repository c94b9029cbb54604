import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, login } from '../../../test/helpers/factories.js'

const t = useTestApp()

describe('the token cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, with Max-Age = the session lifetime, and not Secure over http', async () => {
    const { response, token } = await createSignedInUser(t)
    const cookie = response.cookies.find((c) => c.name === 'token')!
    expect(cookie).toMatchObject({
      value: token,
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      maxAge: 7 * 86400,
    })
    expect(cookie.secure).toBeFalsy()
    const csrf = response.cookies.find((c) => c.name === 'csrf_token')!
    expect(csrf.httpOnly).toBeFalsy()
    expect(csrf).toMatchObject({ sameSite: 'Lax', path: '/' })
  })

  it('authenticates by itself, and the Bearer JWT equals its value', async () => {
    const { token, user } = await createSignedInUser(t)
    const viaCookie = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      cookies: { token },
    })
    const viaBearer = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(token),
    })
    expect(viaCookie.statusCode).toBe(200)
    expect(viaBearer.statusCode).toBe(200)
    expect(viaCookie.json()).toEqual(viaBearer.json())
    expect(viaBearer.json().id).toBe(user.id)
  })

  it('loses to the Authorization header when both are sent', async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(bob.token),
      cookies: { token: alice.token },
    })
    expect(response.json().id).toBe(bob.user.id)
  })

  it('does not fall back to the cookie when the header is present but invalid', async () => {
    const alice = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: { authorization: 'Bearer not-a-token' },
      cookies: { token: alice.token },
    })
    expect(response.statusCode).toBe(401)
  })
})

describe('rejected credentials → 401 UNAUTHORIZED', () => {
  const cases: Array<[string, string]> = [
    ['a malformed header', 'Token abc'],
    ['an empty bearer', 'Bearer '],
    ['garbage', 'Bearer abc.def.ghi'],
    [
      'an unsigned JWT',
      `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x","sid":"y"}').toString('base64url')}.`,
    ],
  ]
  for (const [label, authorization] of cases) {
    it(`for ${label}`, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: { authorization },
      })
      expect(response.statusCode).toBe(401)
      expect(response.json().reason).toBe('UNAUTHORIZED')
    })
  }

  it('for a JWT signed with another secret', async () => {
    const { token } = await createSignedInUser(t)
    const [header, payload] = token.split('.')
    const forged = `${header}.${payload}.${Buffer.alloc(32, 1).toString('base64url')}`
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(forged) }))
        .statusCode,
    ).toBe(401)
  })

  it('for a revoked session', async () => {
    const { token } = await createSignedInUser(t)
    const sessions = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: bearer(token),
    })
    const current = sessions.json().items.find((s: { current: boolean }) => s.current)
    await t.deps.db
      .updateTable('sessions')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', current.id)
      .execute()
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(401)
  })

  it('for an expired session', async () => {
    const { token } = await createSignedInUser(t)
    t.clock.advance(7 * 86400 + 1)
    try {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
          .statusCode,
      ).toBe(401)
    } finally {
      t.clock.advance(-(7 * 86400 + 1))
    }
  })

  it("for a session whose stored expiry has passed, though its access token's has not", async () => {
    const { token } = await createSignedInUser(t)
    const sessions = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: bearer(token),
    })
    const current = sessions.json().items.find((s: { current: boolean }) => s.current)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(200)
    const past = new Date(t.clock.now().getTime() - 1000).toISOString()
    await t.deps.db
      .updateTable('sessions')
      .set({ expires_at: past })
      .where('id', '=', current.id)
      .execute()
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(401)
  })

  it('for a disabled user, on the very next request', async () => {
    const { token, user } = await createSignedInUser(t)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(200)
    await t.deps.db.updateTable('users').set({ disabled: true }).where('id', '=', user.id).execute()
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(401)
  })

  it('for a deleted user', async () => {
    const { token, user } = await createSignedInUser(t)
    await t.deps.db.deleteFrom('users').where('id', '=', user.id).execute()
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) }))
        .statusCode,
    ).toBe(401)
  })
})

describe('GET /api/users/me/sessions', () => {
  it('lists live sessions newest first, marks the current one, and pages with a cursor', async () => {
    const first = await createSignedInUser(t)
    const second = await login(t, first.email, first.password!)
    const third = await login(t, first.email, first.password!)
    const page1 = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions?limit=2',
      headers: bearer(third.token),
    })
    expect(page1.statusCode).toBe(200)
    const body1 = page1.json()
    expect(body1.items).toHaveLength(2)
    expect(body1.items[0]).toEqual({
      id: expect.any(String),
      created_at: expect.stringMatching(/Z$/),
      last_seen_at: expect.stringMatching(/Z$/),
      user_agent: 'lightMyRequest',
      ip: '127.0.0.1',
      sign_in_method: 'password',
      current: true,
    })
    expect(body1.items[1].current).toBe(false)
    expect(body1.next_cursor).toEqual(expect.any(String))

    const page2 = await t.app.inject({
      method: 'GET',
      url: `/api/users/me/sessions?limit=2&cursor=${body1.next_cursor}`,
      headers: bearer(third.token),
    })
    expect(page2.json().items).toHaveLength(1)
    expect(page2.json().next_cursor).toBeNull()
    const ids = [...body1.items, ...page2.json().items].map((s: { id: string }) => s.id)
    expect(new Set(ids).size).toBe(3)
    void second
  })

  it('rejects a cursor it did not issue with 400 on the cursor field', async () => {
    const { token } = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions?cursor=bogus',
      headers: bearer(token),
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details).toEqual([
      { field: 'cursor', message: expect.any(String), code: 'invalid' },
    ])
  })

  it("never shows another user's sessions", async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: bearer(alice.token),
    })
    const ids = response.json().items.map((s: { id: string }) => s.id)
    const bobSessions = await t.deps.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', bob.user.id)
      .execute()
    for (const { id } of bobSessions) expect(ids).not.toContain(id)
  })
})

describe('DELETE /api/users/me/sessions/{id}', () => {
  it('signs out that session only', async () => {
    const phone = await createSignedInUser(t)
    const laptop = await login(t, phone.email, phone.password!)
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: bearer(laptop.token),
    })
    const phoneSession = list.json().items.find((s: { current: boolean }) => !s.current)
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/me/sessions/${phoneSession.id}`,
      headers: bearer(laptop.token),
    })
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(phone.token) }))
        .statusCode,
    ).toBe(401)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(laptop.token) }))
        .statusCode,
    ).toBe(200)

    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/me/sessions/${phoneSession.id}`,
      headers: bearer(laptop.token),
    })
    expect(again.statusCode).toBe(404)
  })

  it("answers 404 for another user's session and for a malformed id", async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const bobSession = await t.deps.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', bob.user.id)
      .executeTakeFirstOrThrow()
    for (const id of [bobSession.id, 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      const response = await t.app.inject({
        method: 'DELETE',
        url: `/api/users/me/sessions/${id}`,
        headers: bearer(alice.token),
      })
      expect(response.statusCode).toBe(404)
      expect(response.json().reason).toBe('NOT_FOUND')
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(bob.token) }))
        .statusCode,
    ).toBe(200)
  })
})
