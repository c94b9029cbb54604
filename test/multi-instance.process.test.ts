/**
 * Two server processes on one database (a SQLite file or a PostgreSQL schema), as a deployment
 * behind a load balancer runs them: what one instance accepted, the other must not accept again.
 */
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, makeTempDir, testEngine, type TestDatabase } from './helpers/database.js'
import { startServerProcess, type ServerProcess } from './helpers/process.js'
import { totpCode } from './helpers/rfc6238.js'

let database: TestDatabase
let a: ServerProcess
let b: ServerProcess

beforeAll(async () => {
  const dataDir = makeTempDir()
  database = await createTestDatabase(dataDir)
  const env = {
    DATABASE_URL: testEngine() === 'postgres' ? database.url : `sqlite:${path.join(dataDir, 'shared.db')}`,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_ITERATIONS: '1',
  }
  a = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
  b = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
})

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await database?.drop()
})

async function call(server: ServerProcess, method: string, url: string, body?: unknown, token?: string) {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, any>) }
}

describe('two server processes, one database', () => {
  it('a TOTP code accepted by one is refused by the other, also when both race', async () => {
    const password = 'two instance passphrase'
    const setup = await call(a, 'POST', '/api/auth/setup', { email: 'ops@example.com', name: 'Ops', password })
    expect(setup.status).toBe(201)
    const token = setup.body!.token as string
    // The session made on A is valid on B.
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(200)

    const begin = await call(b, 'POST', '/api/auth/mfa/enroll/begin', { password }, token)
    const secret = begin.body!.secret as string
    expect((await call(a, 'POST', '/api/auth/mfa/enroll/confirm', { code: totpCode(secret, new Date()) }, token)).status).toBe(200)

    // Wait for the next time step, so the confirming code is not the one under test.
    await new Promise((resolve) => setTimeout(resolve, (30 - ((Date.now() / 1000) % 30)) * 1000 + 200))
    const code = totpCode(secret, new Date())
    const [onA, onB] = await Promise.all([a, b].map((server) => call(server, 'POST', '/api/auth/login', { email: 'ops@example.com', password })))
    expect([onA, onB].map((r) => r!.body)).toEqual([expect.objectContaining({ mfa_required: true }), expect.objectContaining({ mfa_required: true })])
    const results = await Promise.all([
      call(a, 'POST', '/api/auth/mfa/verify', { mfa_token: onA!.body!.mfa_token, code }),
      call(b, 'POST', '/api/auth/mfa/verify', { mfa_token: onB!.body!.mfa_token, code }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual([200, 401])
    expect(results.find((r) => r.status === 401)!.body!.reason).toBe('INVALID_CODE')

    const again = await call(a, 'POST', '/api/auth/login', { email: 'ops@example.com', password })
    const replay = await call(a, 'POST', '/api/auth/mfa/verify', { mfa_token: again.body!.mfa_token, code })
    expect(replay.status).toBe(401)
  }, 60_000)
})
