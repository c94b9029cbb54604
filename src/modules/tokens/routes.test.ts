import { describe, expect, it } from 'vitest'
import { startTestApp, useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
} from '../../../test/helpers/factories.js'
import { generateApiToken } from '../../identity/token-format.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const me = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })

describe('POST /api/tokens', () => {
  it('creates a token and shows the secret once', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(user.token),
      payload: {
        name: '  CI deploys ',
        expires_in_days: 30,
        permissions: ['links:read', 'links:write', 'profile:read'],
      },
    })
    expect(response.statusCode).toBe(201)
    const body = response.json()
    const view = {
      id: expect.any(String),
      name: 'CI deploys',
      prefix: body.token.slice(0, 10),
      created_at: expect.any(String),
      last_used_at: null,
      last_used_ip: null,
      expires_at: expect.any(String),
      legacy: false,
      // The smallest list: links:write implies links:read.
      permissions: ['profile:read', 'links:write'],
      organization_boundary: 'personal',
      organization_ids: [],
    }
    expect(body).toEqual({ ...view, token: expect.stringMatching(/^sb_[0-9A-Za-z]{38}$/) })
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(30 * 86400_000)

    const list = await t.app.inject({
      method: 'GET',
      url: '/api/tokens',
      headers: bearer(user.token),
    })
    expect(list.json().items).toEqual([
      { ...view, id: body.id, created_at: body.created_at, expires_at: body.expires_at },
    ])
    expect(list.body).not.toContain(body.token)
  })

  it('stores only the SHA-256 of the secret', async () => {
    const user = await createSignedInUser(t)
    const { id, token } = await createApiTokenFor(t, user.token)
    const row = await t.deps.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(token.slice(10))
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('validates the name and the expiry', async () => {
    const user = await createSignedInUser(t)
    const permissions = ['links:read']
    for (const payload of [
      {},
      { name: '', permissions },
      { name: 'x'.repeat(101), permissions },
      { name: 'ok' },
      { name: 'ok', permissions: [] },
      { name: 'ok', permissions: ['links:admin'] },
      { name: 'ok', permissions, expires_in_days: 0 },
      { name: 'ok', permissions, expires_in_days: 366 },
      { name: 'ok', permissions, scope: 'all' },
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: bearer(user.token),
        payload,
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().reason).toBe('VALIDATION_FAILED')
    }
  })
})

describe('authenticating with a token', () => {
  it('acts as its user on every endpoint, as Bearer', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    const response = await me(token)
    expect(response.statusCode).toBe(200)
    expect(response.json().id).toBe(user.user.id)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/links', headers: bearer(token) })).statusCode,
    ).toBe(200)
  })

  it('is refused in the token cookie: the cookie carries only the access JWT', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', cookies: { token } })).statusCode,
    ).toBe(401)
  })

  it('stops working on the next request after revocation', async () => {
    const user = await createSignedInUser(t)
    const { id, token } = await createApiTokenFor(t, user.token)
    expect((await me(token)).statusCode).toBe(200)
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/api/tokens/${id}`,
      headers: bearer(user.token),
    })
    expect(revoke.statusCode).toBe(204)
    const after = await me(token)
    expect(after.statusCode).toBe(401)
    expect(after.json().reason).toBe('UNAUTHORIZED')
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/tokens/${id}`,
          headers: bearer(user.token),
        })
      ).statusCode,
    ).toBe(404)
  })

  it('stops working when it expires, and when its user is disabled', async () => {
    const user = await createSignedInUser(t)
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(user.token),
      payload: { name: 'short', expires_in_days: 1, permissions: ['profile:read'] },
    })
    const token: string = created.json().token
    expect((await me(token)).statusCode).toBe(200)
    t.clock.advance(86400 + 1)
    try {
      expect((await me(token)).statusCode).toBe(401)
    } finally {
      t.clock.advance(-(86400 + 1))
    }
    const other = await createApiTokenFor(t, user.token)
    await t.deps.db
      .updateTable('users')
      .set({ disabled: true })
      .where('id', '=', user.user.id)
      .execute()
    expect((await me(other.token)).statusCode).toBe(401)
  })

  it('records last_used_at and the address at most once a minute', async () => {
    const user = await createSignedInUser(t)
    const { id, token } = await createApiTokenFor(t, user.token)
    const marker = await createApiTokenFor(t, user.token)
    const lastUsedOf = async (tokenId: string) =>
      (
        await t.deps.db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', tokenId)
          .executeTakeFirstOrThrow()
      ).last_used_at
    const lastUsed = () => lastUsedOf(id)
    // Written after the answer: waited for, not slept on (a loaded machine takes longer).
    await me(token)
    await expect.poll(lastUsed, { timeout: 5000 }).not.toBeNull()
    const first = await lastUsed()
    const ip = await t.deps.db
      .selectFrom('api_tokens')
      .select('last_used_ip')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(ip.last_used_ip).toBe('127.0.0.1')
    const listed = (
      await t.app.inject({ method: 'GET', url: '/api/tokens', headers: bearer(user.token) })
    )
      .json()
      .items.find((item: { id: string }) => item.id === id)
    expect(listed).toMatchObject({ last_used_at: first, last_used_ip: '127.0.0.1' })
    t.clock.advance(10)
    await me(token)
    // The write is sent, if at all, before the answer; the marker token's first use, sent after
    // it, is waited for — by then a write of the first token would have landed too.
    await me(marker.token)
    await expect.poll(() => lastUsedOf(marker.id), { timeout: 5000 }).not.toBeNull()
    expect(await lastUsed()).toBe(first)
    t.clock.advance(60)
    await me(token)
    await expect
      .poll(async () => Date.parse((await lastUsed())!), { timeout: 5000 })
      .toBeGreaterThan(Date.parse(first!))
  })

  it('refuses a token with a bad checksum without a database lookup', async () => {
    const isolated = await startTestApp()
    try {
      await isolated.deps.database.close() // any lookup would now fail (503: the database is gone)
      const good = generateApiToken()
      const bad = good.slice(0, -1) + (good.endsWith('0') ? '1' : '0')
      const response = await isolated.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: bearer(bad),
      })
      expect(response.statusCode).toBe(401)
      expect(response.json().reason).toBe('UNAUTHORIZED')
      const wellFormed = await isolated.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: bearer(good),
      })
      expect(wellFormed.statusCode).toBe(503) // proves the first one never reached the database
    } finally {
      await isolated.app.close()
      await isolated.database.drop()
    }
  })
})

describe('GET and DELETE /api/tokens', () => {
  it('lists only active tokens, newest first, with cursor pagination', async () => {
    const user = await createSignedInUser(t)
    const created = []
    for (let i = 0; i < 3; i++) {
      created.push(await createApiTokenFor(t, user.token, `token ${i}`))
      t.clock.advance(1)
    }
    await t.app.inject({
      method: 'DELETE',
      url: `/api/tokens/${created[1]!.id}`,
      headers: bearer(user.token),
    })
    const page1 = (
      await t.app.inject({ method: 'GET', url: '/api/tokens?limit=1', headers: bearer(user.token) })
    ).json()
    expect(page1.items.map((i: { name: string }) => i.name)).toEqual(['token 2'])
    const page2 = (
      await t.app.inject({
        method: 'GET',
        url: `/api/tokens?limit=1&cursor=${page1.next_cursor}`,
        headers: bearer(user.token),
      })
    ).json()
    expect(page2.items.map((i: { name: string }) => i.name)).toEqual(['token 0'])
    expect(page2.next_cursor).toBeNull()
  })

  it("answers 404 for another user's token, which keeps working", async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const bobs = await createApiTokenFor(t, bob.token)
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/tokens/${bobs.id}`,
      headers: bearer(alice.token),
    })
    expect(response.statusCode).toBe(404)
    expect((await me(bobs.token)).statusCode).toBe(200)
  })
})

describe('what a token may not do (docs/API.md#what-an-api-token-may-not-do)', () => {
  it('create tokens, change the password or delete the account: 403 SESSION_REQUIRED (every session-only operation: permissions.routes.test.ts)', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    const attempts = [
      {
        method: 'POST' as const,
        url: '/api/tokens',
        payload: { name: 'minted', permissions: ['links:read'] },
      },
      {
        method: 'POST' as const,
        url: '/api/users/me/password',
        payload: { current_password: DEFAULT_PASSWORD, new_password: 'a whole new passphrase' },
      },
      { method: 'DELETE' as const, url: '/api/users/me', payload: { password: DEFAULT_PASSWORD } },
    ]
    for (const attempt of attempts) {
      const response = await t.app.inject({ ...attempt, headers: bearer(token) })
      expect(response.statusCode, attempt.url).toBe(403)
      expect(response.json().reason).toBe('SESSION_REQUIRED')
    }
    expect((await me(token)).statusCode).toBe(200)
  })
})

describe('quota and rate limit', () => {
  it('allows 100 active tokens per user: the 101st is 409 LIMIT_REACHED', async () => {
    const user = await createSignedInUser(t)
    const now = t.clock.now().toISOString()
    await t.deps.db
      .insertInto('api_tokens')
      .values(
        Array.from({ length: 100 }, (_, i) => ({
          id: `quota-${user.user.id}-${i}`,
          user_id: user.user.id,
          name: `bulk ${i}`,
          prefix: 'sb_bulk000',
          token_hash: `${user.user.id}-${i}`,
          created_at: now,
          permissions: '["links:read"]',
        })),
      )
      .execute()
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(user.token),
      payload: { name: 'one too many', permissions: ['links:read'] },
    })
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ reason: 'LIMIT_REACHED', details: expect.any(String) })
    // Revoking one frees a place.
    await t.app.inject({
      method: 'DELETE',
      url: `/api/tokens/quota-${user.user.id}-0`,
      headers: bearer(user.token),
    })
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: bearer(user.token),
          payload: { name: 'fits', permissions: ['links:read'] },
        })
      ).statusCode,
    ).toBe(201)
  })

  it('limits creation to 10 per 15 minutes per user, counting refused attempts; 429 with retryAfter', async () => {
    const user = await createSignedInUser(t)
    for (let i = 0; i < 5; i++)
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/tokens',
            headers: bearer(user.token),
            payload: { name: `t${i}`, permissions: ['links:read'] },
          })
        ).statusCode,
      ).toBe(201)
    for (let i = 0; i < 5; i++)
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/tokens',
            headers: bearer(user.token),
            payload: { name: '', permissions: ['links:read'] },
          })
        ).statusCode,
      ).toBe(400)
    const limited = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(user.token),
      payload: { name: 'eleventh', permissions: ['links:read'] },
    })
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toMatchObject({ reason: 'RATE_LIMITED', code: 429 })
    expect(limited.json().retryAfter).toBeGreaterThan(14 * 60)
    expect(limited.headers['retry-after']).toBe(String(limited.json().retryAfter))
    expect(limited.headers['ratelimit-limit']).toBe('10')
    // Another user is not affected.
    const other = await createSignedInUser(t)
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: bearer(other.token),
          payload: { name: 'mine', permissions: ['links:read'] },
        })
      ).statusCode,
    ).toBe(201)
  })

  it('audits creation and revocation without the secret', async () => {
    const user = await createSignedInUser(t)
    const { id, token } = await createApiTokenFor(t, user.token)
    await t.app.inject({ method: 'DELETE', url: `/api/tokens/${id}`, headers: bearer(user.token) })
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', id)
      .orderBy('at')
      .execute()
    expect(events.map((e) => e.action)).toEqual(['token.create', 'token.revoke'])
    expect(JSON.stringify(events)).not.toContain(token)
  })
})
