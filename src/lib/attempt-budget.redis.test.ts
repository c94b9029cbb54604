/**
 * The Redis counter store against the real Redis server (CI always has one; see vitest.config.ts).
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { AttemptBudgets, createRedisCounterStore } from './attempt-budget.js'
import { sha256Hex } from './crypto.js'

const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379')
afterAll(() => redis.disconnect())

describe('Redis counter store', () => {
  it('counts atomically with one expiry per window', async () => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`
    const store = createRedisCounterStore(redis, prefix)
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.increment('k', 60_000)),
    )
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    const state = await store.read('k')
    expect(state.count).toBe(20)
    expect(state.resetInMs).toBeGreaterThan(55_000)
    expect(state.resetInMs).toBeLessThanOrEqual(60_000)
    expect(await redis.pttl(`${prefix}k`)).toBeGreaterThan(0)
    expect(await store.read('other')).toEqual({ count: 0, resetInMs: 0 })
  })

  it('is one budget for two independent clients (two instances)', async () => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`
    const second = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379')
    try {
      const a = new AttemptBudgets(createRedisCounterStore(redis, prefix))
      const b = new AttemptBudgets(createRedisCounterStore(second, prefix))
      const charges = [
        { budget: { name: 'shared', limit: 2, windowSeconds: 60 }, subject: 'carol' },
      ]
      await a.charge(charges)
      await b.charge(charges)
      await expect(a.assertAvailable(charges)).rejects.toMatchObject({ reason: 'RATE_LIMITED' })
      await expect(b.assertAvailable(charges)).rejects.toMatchObject({ reason: 'RATE_LIMITED' })
    } finally {
      second.disconnect()
    }
  })

  it('reserves atomically across two clients: of 60 concurrent attempts at most the limit get through', async () => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`
    const second = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379')
    try {
      const instances = [
        new AttemptBudgets(createRedisCounterStore(redis, prefix)),
        new AttemptBudgets(createRedisCounterStore(second, prefix)),
      ]
      const pair = { budget: { name: 'pair', limit: 4, windowSeconds: 60 }, subject: 'frank+ip' }
      const wide = { budget: { name: 'wide', limit: 100, windowSeconds: 60 }, subject: 'frank' }
      let evaluated = 0
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          instances[i % 2]!.attempt([pair, wide], async () => {
            evaluated++
            await new Promise((resolve) => setTimeout(resolve, 5))
            return null
          }),
        ),
      )
      expect(evaluated).toBe(4)
      const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason)
      expect(refused).toHaveLength(56)
      expect(refused[0]).toMatchObject({ reason: 'RATE_LIMITED', retryAfter: 60 })
      // Refused attempts were undone everywhere: the wide budget holds only the four evaluated.
      expect(await redis.get(`${prefix}wide:${sha256Hex('frank')}`)).toBe('4')
      // A successful attempt is given back.
      const other = { budget: pair.budget, subject: 'grace+ip' }
      expect(await instances[0]!.attempt([other], async () => 'ok')).toBe('ok')
      expect(await redis.get(`${prefix}pair:${sha256Hex('grace+ip')}`)).toBe('0')
    } finally {
      second.disconnect()
    }
  })

  it('keeps two deployments apart when each names its own database number in REDIS_URL (README)', async () => {
    const base = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
    const deploymentA = new Redis(`${base.replace(/\/\d*$/, '')}/14`)
    const deploymentB = new Redis(`${base.replace(/\/\d*$/, '')}/15`)
    try {
      // The default prefix, as a deployment uses it: only the database number separates them.
      const subject = `deploy-${randomBytes(4).toString('hex')}`
      const charges = [{ budget: { name: 'mail:instance', limit: 1, windowSeconds: 60 }, subject }]
      const a = new AttemptBudgets(createRedisCounterStore(deploymentA))
      const b = new AttemptBudgets(createRedisCounterStore(deploymentB))
      await a.charge(charges)
      await expect(a.assertAvailable(charges)).rejects.toMatchObject({ reason: 'RATE_LIMITED' })
      await expect(b.assertAvailable(charges)).resolves.toBeUndefined()
    } finally {
      deploymentA.disconnect()
      deploymentB.disconnect()
    }
  })

  it('keeps subjects out of the keys: they are hashed', async () => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`
    await new AttemptBudgets(createRedisCounterStore(redis, prefix)).charge([
      { budget: { name: 'login:email', limit: 5, windowSeconds: 60 }, subject: 'dave@example.com' },
    ])
    const keys = await redis.keys(`${prefix}*`)
    expect(keys).toHaveLength(1)
    expect(keys[0]).not.toContain('dave')
    expect(keys[0]).toMatch(/^sbtest:[0-9a-f]+:login:email:[0-9a-f]{64}$/)
  })
})
