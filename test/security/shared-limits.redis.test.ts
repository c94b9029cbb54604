/** With REDIS_URL, instances share one budget; when Redis cannot be reached they keep serving. */
import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  login,
} from '../helpers/factories.js'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const ownAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`

describe('limits shared through Redis', () => {
  const t = useTestApp({ env: { REDIS_URL: redisUrl, RATE_LIMIT_GENERAL: '6' } })
  // The general limit (6 per minute) applies to t's unauthenticated requests by IP as well.

  it('two instances on one database and one Redis draw on one request budget', async () => {
    const peer = await startPeerInstance(t)
    // A started instance has waited for Redis (app.ts): its first request already counts there.
    expect(peer.deps.redis?.status).toBe('ready')
    try {
      // The sign-in is unauthenticated, so counted by IP in the shared Redis: an address of our own
      // keeps other runs and test files (the multi-instance process tests sign in from 127.0.0.1)
      // from spending this run's budget of 6.
      const { email } = await createUser(t)
      const user = await login(t, email, DEFAULT_PASSWORD, ownAddress())
      const remaining: string[] = []
      for (const app of [t.app, t.app, t.app, peer.app, peer.app, peer.app]) {
        const response = await app.inject({
          method: 'GET',
          url: '/api/users/me',
          headers: bearer(user.token),
        })
        expect(response.statusCode).toBe(200)
        remaining.push(String(response.headers['ratelimit-remaining']))
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0'])
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
          .statusCode,
      ).toBe(429)
      expect(
        (
          await peer.app.inject({
            method: 'GET',
            url: '/api/users/me',
            headers: bearer(user.token),
          })
        ).statusCode,
      ).toBe(429)
    } finally {
      await peer.close()
    }
  })

  it('two instances share the login failure budget', async () => {
    const peer = await startPeerInstance(t, { RATE_LIMIT_GENERAL: '0' })
    try {
      const { email } = await createUser(t)
      // Redis outlives test runs and is shared by both engines' runs: use an address of our own.
      const ip = ownAddress()
      for (let i = 0; i < 10; i++) {
        const app = i % 5 === 0 ? t.app : peer.app
        const response = await app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: `wrong ${i} guess` },
          remoteAddress: ip,
        })
        expect(response.statusCode).toBe(401)
      }
      const blocked = await peer.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: DEFAULT_PASSWORD },
        remoteAddress: ip,
      })
      expect(blocked.statusCode).toBe(429)
    } finally {
      await peer.close()
    }
  })
})

describe('Redis unreachable', () => {
  const t = useTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_GENERAL: '3' } })

  it('keeps serving with per-process limits and says so in the log once', async () => {
    const user = await createSignedInUser(t)
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
          .statusCode,
      )
    expect(statuses).toEqual([200, 200, 200, 429])
    const warnings = t.logs.filter((line) => line.includes('falling back to per-process limits'))
    expect(warnings).toHaveLength(1)
  })
})
