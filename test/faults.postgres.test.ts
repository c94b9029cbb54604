/**
 * PostgreSQL going away under load: requests fail fast with 503, readiness says so,
 * nothing hangs, and the service recovers by itself when the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from './helpers/app.js'
import { bearer, createSignedInUser } from './helpers/factories.js'
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js'

let proxy: TcpProxy
let t: TestContext

beforeAll(async () => {
  const direct = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
  proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432))
  t = await startTestApp({
    env: { RATE_LIMIT_GENERAL: '0' },
    databaseVia: (url) => url.replace(`:${direct.port || 5432}/`, `:${proxy.port}/`),
  })
})

afterAll(async () => {
  await proxy.restore().catch(() => undefined)
  await t.close()
  await proxy.close()
})

describe('PostgreSQL stopped under load', () => {
  it('answers 503 fast while it is gone, and recovers by itself', async () => {
    const user = await createSignedInUser(t)
    const me = () =>
      t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) })
    expect((await me()).statusCode).toBe(200)

    let running = true
    const statuses: number[] = []
    const durations: number[] = []
    const load = Array.from({ length: 8 }, async () => {
      while (running) {
        const started = Date.now()
        const response = await me()
        durations.push(Date.now() - started)
        statuses.push(response.statusCode)
        if (response.statusCode !== 200) {
          expect(response.json()).toMatchObject({ code: 503, reason: 'SERVICE_UNAVAILABLE' })
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    })

    await new Promise((resolve) => setTimeout(resolve, 300))
    await proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const ready = await t.app.inject({ method: 'GET', url: '/api/health/ready' })
    expect(ready.statusCode).toBe(503)
    expect((await me()).statusCode).toBe(503)

    await proxy.restore()
    const deadline = Date.now() + 15_000
    while ((await me()).statusCode !== 200 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    running = false
    await Promise.all(load)

    expect((await me()).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/api/health/ready' })).statusCode).toBe(200)
    expect(statuses).toContain(200)
    expect(statuses).toContain(503)
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true)
    // Fail fast: no request waits past the pool's connect timeout
    expect(Math.max(...durations)).toBeLessThan(6000)
    expect(t.logs.some((line) => line.includes('the database is not answering'))).toBe(true)
  }, 60_000)
})
