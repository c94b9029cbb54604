import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, cookieValue } from '../../../test/helpers/factories.js'

const t = useTestApp()

const admin = {
  email: '  First.Admin@Example.COM ',
  name: '  Ada Admin ',
  password: 'a long and unusual passphrase',
}

describe('first-run setup', () => {
  it('reports an uninitialised instance', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/setup' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ initialized: false, setup_code_required: false })
  })

  it('refuses a common password, naming the field and why', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { ...admin, password: 'password123' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details).toEqual([
      {
        field: 'password',
        message: expect.stringContaining('too common'),
        code: 'common_password',
      },
    ])
  })

  it('refuses a password too short or too long with its limit, so a client can say it in its language', async () => {
    for (const [password, code, limit] of [
      ['seven 7', 'too_short', 8],
      ['x7'.repeat(128) + 'y', 'too_long', 256],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/setup',
        payload: { ...admin, password },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().details).toEqual([
        { field: 'password', message: expect.stringContaining(`${limit} characters`), code, limit },
      ])
    }
  })

  it('refuses a password that equals the email', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { ...admin, password: 'First.Admin@example.com' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details[0]).toEqual({
      field: 'password',
      message: expect.stringContaining('email'),
      code: 'same_as_email',
    })
  })

  it('creates exactly one administrator when two setups race', async () => {
    const [a, b] = await Promise.all([
      t.app.inject({ method: 'POST', url: '/api/auth/setup', payload: admin }),
      t.app.inject({
        method: 'POST',
        url: '/api/auth/setup',
        payload: { ...admin, email: 'second@example.com' },
      }),
    ])
    const statuses = [a.statusCode, b.statusCode].sort()
    expect(statuses).toEqual([201, 409])
    const loser = a.statusCode === 409 ? a : b
    expect(loser.json()).toMatchObject({ code: 409, reason: 'ALREADY_INITIALIZED' })
    const count = await t.deps.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(1)
  })

  it('signed the winner in: the user is an administrator with a working token and cookies', async () => {
    const user = await t.deps.db
      .selectFrom('users')
      .select(['email', 'name', 'is_admin'])
      .executeTakeFirstOrThrow()
    expect(['first.admin@example.com', 'second@example.com']).toContain(user.email)
    expect(Boolean(user.is_admin)).toBe(true)

    // Ensure no state change
    await t.app.inject({ method: 'POST', url: '/api/auth/setup', payload: admin })
    const status = await t.app.inject({ method: 'GET', url: '/api/auth/setup' })
    expect(status.json()).toEqual({ initialized: true })
  })

  it('refuses every later setup with 409 ALREADY_INITIALIZED', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { ...admin, email: 'third@example.com' },
    })
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ error: 'Conflict', reason: 'ALREADY_INITIALIZED' })
  })
})

describe('setup response', () => {
  const fresh = useTestApp()

  it('returns 201 with the user, the access JWT and its expiry, and sets both cookies', async () => {
    const response = await fresh.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: admin,
    })
    expect(response.statusCode).toBe(201)
    const body = response.json()
    expect(body.user).toMatchObject({
      email: 'first.admin@example.com',
      name: 'Ada Admin',
      is_admin: true,
      has_password: true,
    })
    expect(body.token.split('.')).toHaveLength(3)
    expect(new Date(body.expires_at).toISOString()).toBe(body.expires_at)
    expect(cookieValue(response, 'token')).toBe(body.token)
    expect(cookieValue(response, 'csrf_token')).toBeTruthy()

    const me = await fresh.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(body.token),
    })
    expect(me.statusCode).toBe(200)
    expect(me.json().id).toBe(body.user.id)
  })

  it('records the setup in the audit log', async () => {
    const events = await fresh.deps.db
      .selectFrom('audit_events')
      .select(['action', 'actor_email'])
      .execute()
    expect(events).toContainEqual({ action: 'auth.setup', actor_email: 'first.admin@example.com' })
  })
})
