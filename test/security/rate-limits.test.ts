/** Request rate limits of docs/API.md#rate-limits: headers, the 429 envelope, windows, opt-outs. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { bearer, createSignedInUser } from '../helpers/factories.js'

describe('the general limit (RATE_LIMIT_GENERAL per minute, per credential)', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '5' } })

  it('sends RateLimit headers, then 429 with retryAfter and Retry-After, per credential', async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    for (let i = 0; i < 5; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: bearer(alice.token),
      })
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBe('5')
      expect(response.headers['ratelimit-remaining']).toBe(String(4 - i))
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0)
    }
    const limited = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(alice.token),
    })
    expect(limited.statusCode).toBe(429)
    const body = limited.json()
    expect(body).toMatchObject({ error: 'Too Many Requests', code: 429, reason: 'RATE_LIMITED' })
    expect(body.retryAfter).toBeGreaterThan(0)
    expect(body.retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers['retry-after']).toBe(String(body.retryAfter))
    expect(limited.headers['x-request-id']).toBeTruthy()

    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(bob.token) }))
        .statusCode,
    ).toBe(200)

    t.clock.advance(61)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(alice.token) }))
        .statusCode,
    ).toBe(200)
  })

  it('keys unauthenticated requests by IP', async () => {
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '10.20.0.1' }))
          .statusCode,
      ).toBe(200)
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '10.20.0.1' }))
        .statusCode,
    ).toBe(429)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '10.20.0.2' }))
        .statusCode,
    ).toBe(200)
  })

  it('never limits the health probes', async () => {
    for (let i = 0; i < 12; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/health/ready',
        remoteAddress: '10.20.0.9',
      })
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBeUndefined()
    }
  })
})

describe('RATE_LIMIT_GENERAL=0', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

  it('switches the general limit off', async () => {
    const alice = await createSignedInUser(t)
    for (let i = 0; i < 30; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: bearer(alice.token),
      })
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBeUndefined()
    }
  })

  it('keeps the specific limits: setup, 10 per 15 minutes per IP', async () => {
    const payload = { email: 'x@example.com', name: 'X', password: 'a fine passphrase' }
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/setup',
        payload,
        remoteAddress: '10.30.0.1',
      })
      expect(response.statusCode).toBe(409) // this file's database already has users
      expect(response.headers['ratelimit-limit']).toBe('10')
    }
    const limited = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload,
      remoteAddress: '10.30.0.1',
    })
    expect(limited.statusCode).toBe(429)
    expect(limited.json().retryAfter).toBeGreaterThan(14 * 60)
  })
})
