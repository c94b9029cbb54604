/**
 * The per-request hot reads (db/precompiled.ts) as HTTP sees them — a session's access JWT, an
 * sb_ token, the MFA status, the go redirect — and their revocation, seen at the very next request.
 * Used to hold the fallback readers (POSTGRES_HOT_READS=pool, SQLITE_READ_CACHE=off) to the same
 * answers as the default ones.
 */
import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import type { TestContext } from './app.js'
import { bearer, createApiTokenFor, createSignedInUser } from './factories.js'
import { createLink } from './links.js'

/** Every hot path of `app` (an instance on t's database) answers right, and forgets at once. */
export async function expectHotPathsToAnswer(
  t: TestContext,
  app: FastifyInstance = t.app,
): Promise<void> {
  const alice = await createSignedInUser(t)
  const { id: tokenId, token } = await createApiTokenFor(t, alice.token, 'hot paths', {
    permissions: ['profile:read', 'links:read'],
  })
  const slug = `hot-${alice.user.id.slice(-8)}`
  await createLink(t, alice.token, { slug, url: 'https://wiki.example/start' })
  const get = (url: string, headers: Record<string, string>) =>
    app.inject({ method: 'GET', url, headers })

  for (let round = 0; round < 3; round++) {
    const byJwt = await get('/api/users/me', bearer(alice.token))
    expect(byJwt.statusCode).toBe(200)
    expect(byJwt.json()).toMatchObject({ id: alice.user.id, email: alice.email })
    const byToken = await get('/api/users/me', bearer(token))
    expect(byToken.statusCode).toBe(200)
    expect(byToken.json()).toMatchObject({ id: alice.user.id })
    const mfa = await get('/api/auth/mfa/status', bearer(alice.token))
    expect(mfa.statusCode).toBe(200)
    expect(mfa.json()).toMatchObject({ enabled: false })
    const go = await get(`/go/${slug}`, { cookie: `token=${alice.token}` })
    expect(go.statusCode).toBe(302)
    expect(go.headers.location).toBe('https://wiki.example/start')
  }
  const unknown = await get('/go/nothing-here', { cookie: `token=${alice.token}` })
  expect(unknown.headers.location ?? '').not.toContain('wiki.example')

  // Revoked on t's instance: refused on `app` at the very next request.
  const revoked = await t.app.inject({
    method: 'DELETE',
    url: `/api/tokens/${tokenId}`,
    headers: bearer(alice.token),
  })
  expect(revoked.statusCode).toBe(204)
  expect((await get('/api/users/me', bearer(token))).statusCode).toBe(401)
  const logout = await t.app.inject({
    method: 'POST',
    url: '/api/auth/logout',
    headers: bearer(alice.token),
  })
  expect(logout.statusCode).toBeLessThan(300)
  expect((await get('/api/users/me', bearer(alice.token))).statusCode).toBe(401)
  const signedOut = await get(`/go/${slug}`, { cookie: `token=${alice.token}` })
  expect(signedOut.headers.location ?? '').not.toContain('wiki.example')
}
