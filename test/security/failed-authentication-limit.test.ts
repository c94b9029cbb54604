/**
 * Requests with invalid credentials no longer skip the general rate limit — each
 * failed authentication counts against the IP's general limit (RATE_LIMIT_GENERAL per minute), and
 * once that is spent they answer 429 RATE_LIMITED with retryAfter.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { bearer, createSignedInUser } from '../helpers/factories.js'

describe('failed authentication and the general limit (RATE_LIMIT_GENERAL=5)', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '5' } })
  const me = (authorization: string, remoteAddress: string) =>
    t.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization }, remoteAddress })

  it('a burst of 50 invalid tokens from one IP gets at most 5 answers of 401, the rest 429', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => me(`Bearer sb_invalid${i}`, '10.8.0.1')),
    )
    const unauthorized = responses.filter((r) => r.statusCode === 401).length
    const limited = responses.filter((r) => r.statusCode === 429)
    expect(unauthorized).toBeLessThanOrEqual(5)
    expect(unauthorized + limited.length).toBe(50)
    expect(limited[0]!.json()).toMatchObject({
      reason: 'RATE_LIMITED',
      retryAfter: expect.any(Number),
    })
    expect(limited[0]!.headers['retry-after']).toBeDefined()
    // The same IP's unauthenticated requests share the spent limit …
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/setup', remoteAddress: '10.8.0.1' }))
        .statusCode,
    ).toBe(429)
  })

  it('… while other addresses and valid credentials are unaffected', async () => {
    const user = await createSignedInUser(t, {})
    expect((await me(bearer(user.token).authorization, '10.8.0.2')).statusCode).toBe(200)
    expect((await me('Bearer not-a-token', '10.8.0.3')).statusCode).toBe(401)
  })
})
