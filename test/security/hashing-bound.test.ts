/**
 * Argon2 work is bounded process-wide (PASSWORD_HASH_CONCURRENCY running,
 * PASSWORD_HASH_QUEUE waiting, one client at most an eighth of the places); beyond that 503
 * SERVICE_UNAVAILABLE with Retry-After. A backup-code attempt costs one hash verification.
 * These tests use the production argon2 cost (19 MiB, 2 passes): the point is the time it takes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestApp, type TestContext } from '../helpers/app.js'
import {
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
  uniqueEmail,
  verifyMfa,
} from '../helpers/factories.js'

const PRODUCTION_COST = {
  PASSWORD_HASH_MEMORY_KIB: '19456',
  PASSWORD_HASH_ITERATIONS: '2',
  RATE_LIMIT_GENERAL: '0',
}

describe('bounded password hashing (defaults: 2 running, 32 waiting)', () => {
  let t: TestContext
  beforeAll(async () => {
    t = await startTestApp({
      env: { ...PRODUCTION_COST, PASSWORD_HASH_CONCURRENCY: '2', PASSWORD_HASH_QUEUE: '32' },
    })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('a legitimate login stays under 1 s while a flood of 200 unknown-email logins runs', async () => {
    const { email } = await createUser(t)
    const alone = performance.now()
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: DEFAULT_PASSWORD },
          remoteAddress: '10.20.0.1',
        })
      ).statusCode,
    ).toBe(200)
    const aloneMs = performance.now() - alone

    const flood = Promise.all(
      Array.from({ length: 200 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: uniqueEmail('ghost'), password: 'wrong password here' },
          remoteAddress: '10.66.0.1',
        }),
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 20)) // the flood is in flight
    const started = performance.now()
    const legit = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: DEFAULT_PASSWORD },
      remoteAddress: '10.20.0.2',
    })
    const underFloodMs = performance.now() - started
    const statuses = (await flood).map((r) => r.statusCode)
    console.info(
      `login alone ${aloneMs.toFixed(0)} ms, under a flood of 200 ${underFloodMs.toFixed(0)} ms; flood answers: ` +
        `${statuses.filter((s) => s === 401).length}×401, ${statuses.filter((s) => s === 429).length}×429, ${statuses.filter((s) => s === 503).length}×503`,
    )
    expect(legit.statusCode).toBe(200)
    expect(underFloodMs).toBeLessThan(1000)
    expect(statuses.every((s) => s === 401 || s === 429 || s === 503)).toBe(true)
  })

  it('a backup-code attempt costs one hash verification, right or wrong', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    const verify = vi.spyOn(t.deps.passwords, 'verify')
    try {
      expect(
        (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), 'zzzzz-zzzzz'))
          .statusCode,
      ).toBe(401)
      const afterLogin = verify.mock.calls.length
      verify.mockClear()
      expect(
        (
          await verifyMfa(
            t,
            await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
            backupCodes[9]!,
          )
        ).statusCode,
      ).toBe(200)
      // Each round: one verification for the password sign-in, one for the backup code.
      expect(afterLogin).toBe(2)
      expect(verify.mock.calls.length).toBe(2)
    } finally {
      verify.mockRestore()
    }
  })
})

describe('bounded password hashing (a tiny bound: 1 running, 2 waiting)', () => {
  let t: TestContext
  beforeAll(async () => {
    t = await startTestApp({
      env: { ...PRODUCTION_COST, PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '2' },
    })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the hashing queue is full, and gives the attempt back', async () => {
    const { email } = await createUser(t)
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: `wrong guess ${i}` },
          remoteAddress: `10.30.0.${i + 1}`,
        }),
      ),
    )
    const busy = responses.filter((r) => r.statusCode === 503)
    expect(busy.length).toBeGreaterThan(0)
    for (const response of busy) {
      expect(response.json()).toMatchObject({ reason: 'SERVICE_UNAVAILABLE' })
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    expect(responses.every((r) => r.statusCode === 401 || r.statusCode === 503)).toBe(true)
    // A refused attempt was not counted: the email budget holds only the evaluated failures.
    const evaluated = responses.filter((r) => r.statusCode === 401).length
    const key = `login:email:${(await import('../../src/lib/crypto.js')).sha256Hex(email)}`
    expect((await t.deps.counters.read(key)).count).toBe(evaluated)
  })
})
