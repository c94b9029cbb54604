/**
 * Two server processes on one database (a SQLite file or a PostgreSQL schema) and one Redis, as a
 * deployment behind a load balancer runs them: a session or token is one truth for both, what one
 * instance accepted the other must not accept again, and limits are shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  makeTempDir,
  testEngine,
  type TestDatabase,
} from './helpers/database.js'
import { sharedInstanceEnv, startServerProcess, type ServerProcess } from './helpers/process.js'
import { totpCode } from './helpers/rfc6238.js'

let database: TestDatabase

function redisDatabaseFor(url: string, engine: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${engine === 'postgres' ? 2 : 1}`
  return parsed.toString()
}

let a: ServerProcess
let b: ServerProcess

beforeAll(async () => {
  const dataDir = makeTempDir()
  database = await createTestDatabase(dataDir)
  const env = {
    ...sharedInstanceEnv(database, dataDir, testEngine()),
    // The suite runs this file on both engines at once; their rate limits must not share keys (a
    // limit one run spent answered the other 429), so each engine gets its own Redis database.
    REDIS_URL: redisDatabaseFor(
      process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      testEngine(),
    ),
  }
  a = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
  b = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
})

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await database?.drop()
})

async function call(
  server: ServerProcess,
  method: string,
  url: string,
  body?: unknown,
  token?: string,
) {
  const response = await server.fetch(url, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  return {
    status: response.status,
    // A JSON body; the tests assert its fields.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    body: response.status === 204 ? null : ((await response.json()) as Record<string, any>),
  }
}

const password = 'two instance passphrase'
let adminToken: string
let backupCodes: string[] = []

describe('two server processes, one database', () => {
  it('a session made on one works on the other; logout on one is refused on the other', async () => {
    const setup = await call(a, 'POST', '/api/auth/setup', {
      email: 'ops@example.com',
      name: 'Ops',
      password,
    })
    expect(setup.status).toBe(201)
    adminToken = setup.body!.token as string
    expect((await call(b, 'GET', '/api/users/me', undefined, adminToken)).status).toBe(200)

    const second = await call(a, 'POST', '/api/auth/login', { email: 'ops@example.com', password })
    const token = second.body!.token as string
    // Used on both first: on SQLite each instance now holds the lookup's rows until the database
    // changes.
    expect((await call(a, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
    expect((await call(b, 'POST', '/api/auth/logout', undefined, token)).status).toBe(204)
    expect((await call(a, 'GET', '/api/users/me', undefined, token)).status).toBe(401)
  })

  it('go-link clicks served by both are counted exactly once both have flushed', async () => {
    const link = await call(
      a,
      'POST',
      '/api/links',
      { url: 'https://clicked.example/', slug: 'clicked' },
      adminToken,
    )
    expect(link.status).toBe(201)
    const perInstance = 250
    // Waves of 50 at a time on each: both instances serve and count at once, within the shared rate
    // limit.
    for (let wave = 0; wave < perInstance / 50; wave++) {
      const responses = await Promise.all(
        [a, b].flatMap((server) =>
          Array.from({ length: 50 }, () =>
            fetch(`${server.baseUrl}/go/clicked/docs`, {
              redirect: 'manual',
              headers: { authorization: `Bearer ${adminToken}` },
            }),
          ),
        ),
      )
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 302))
      expect(responses[0]!.headers.get('location')).toBe('https://clicked.example/docs')
    }
    // Each instance writes at most once a second; then both have added theirs (not overwritten).
    const until = Date.now() + 20_000
    const counted = async () =>
      (await call(b, 'GET', `/api/links/${link.body!.id as string}/clicks`, undefined, adminToken))
        .body!.total as number
    while (Date.now() < until && (await counted()) < 2 * perInstance)
      await new Promise((resolve) => setTimeout(resolve, 250))
    // A moment longer: nothing more may arrive than was served.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const final = await call(
      a,
      'GET',
      `/api/links/${link.body!.id as string}`,
      undefined,
      adminToken,
    )
    expect(final.body!.clicks_30d).toBe(2 * perInstance)
  }, 60_000)

  it('a user disabled on one is refused on the other at the next request', async () => {
    const memberPassword = 'another sound passphrase 43'
    const created = await call(
      a,
      'POST',
      '/api/admin/users',
      { email: 'member@example.com', name: 'Member', password: memberPassword },
      adminToken,
    )
    expect(created.status).toBe(201)
    const signedIn = await call(b, 'POST', '/api/auth/login', {
      email: 'member@example.com',
      password: memberPassword,
    })
    const token = signedIn.body!.token as string
    expect((await call(a, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).status).toBe(200)

    const disabled = await call(
      a,
      'PUT',
      `/api/admin/users/${created.body!.id as string}`,
      { disabled: true, current_password: password },
      adminToken,
    )
    expect(disabled.status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).status).toBe(401)
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(401)
  })

  it('an API token revoked on one fails on the other at the next request', async () => {
    const created = await call(
      a,
      'POST',
      '/api/tokens',
      { name: 'shared', permissions: ['profile:read'] },
      adminToken,
    )
    const { id, token } = created.body as { id: string; token: string }
    // Twice: the first use also records it (a write, which empties that instance's read cache).
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
    expect((await call(a, 'DELETE', `/api/tokens/${id}`, undefined, adminToken)).status).toBe(204)
    expect((await call(b, 'GET', '/api/users/me', undefined, token)).status).toBe(401)
  })

  it('shares the token-creation budget through Redis: the 11th creation across both is 429', async () => {
    // One creation was made above; nine more alternate between the instances.
    for (let i = 0; i < 9; i++) {
      const server = i % 2 === 0 ? b : a
      expect(
        (
          await call(
            server,
            'POST',
            '/api/tokens',
            { name: `t${i}`, permissions: ['profile:read'] },
            adminToken,
          )
        ).status,
      ).toBe(201)
    }
    const eleventh = await call(
      b,
      'POST',
      '/api/tokens',
      { name: 'one too many', permissions: ['profile:read'] },
      adminToken,
    )
    expect(eleventh.status).toBe(429)
    expect(eleventh.body).toMatchObject({ reason: 'RATE_LIMITED' })
    expect(
      (
        await call(
          a,
          'POST',
          '/api/tokens',
          { name: 'still too many', permissions: ['profile:read'] },
          adminToken,
        )
      ).status,
    ).toBe(429)
  })

  it('a TOTP code accepted by one is refused by the other, also when both race', async () => {
    const token = adminToken

    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).body).toMatchObject({
      enabled: false,
      pending: false,
    })
    const begin = await call(b, 'POST', '/api/auth/mfa/enroll/begin', { password }, token)
    const secret = begin.body!.secret as string
    for (const server of [a, b]) {
      expect(
        (await call(server, 'GET', '/api/auth/mfa/status', undefined, token)).body,
      ).toMatchObject({ enabled: false, pending: true })
    }
    const confirmed = await call(
      a,
      'POST',
      '/api/auth/mfa/enroll/confirm',
      { code: totpCode(secret, new Date()) },
      token,
    )
    expect(confirmed.status).toBe(200)
    // Each instance shows what the other just wrote.
    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).body).toMatchObject({
      enabled: true,
      pending: false,
    })
    backupCodes = confirmed.body!.backup_codes as string[]

    // The next time step's code, which the service accepts (one step either side of its clock):
    // a step after the confirming code's, so that code is not the one under test.
    const code = totpCode(secret, new Date(), 1)
    const [onA, onB] = await Promise.all(
      [a, b].map((server) =>
        call(server, 'POST', '/api/auth/login', { email: 'ops@example.com', password }),
      ),
    )
    expect([onA, onB].map((r) => r!.body)).toEqual([
      expect.objectContaining({ mfa_required: true }),
      expect.objectContaining({ mfa_required: true }),
    ])
    const results = await Promise.all([
      call(a, 'POST', '/api/auth/mfa/verify', { mfa_token: onA!.body!.mfa_token, code }),
      call(b, 'POST', '/api/auth/mfa/verify', { mfa_token: onB!.body!.mfa_token, code }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual([200, 401])
    expect(results.find((r) => r.status === 401)!.body!.reason).toBe('INVALID_CODE')

    const again = await call(a, 'POST', '/api/auth/login', { email: 'ops@example.com', password })
    const replay = await call(a, 'POST', '/api/auth/mfa/verify', {
      mfa_token: again.body!.mfa_token,
      code,
    })
    expect(replay.status).toBe(401)
  }, 60_000)

  it('a backup code raced on both succeeds once', async () => {
    const challenges = await Promise.all(
      [a, b, a, b].map((server) =>
        call(server, 'POST', '/api/auth/login', { email: 'ops@example.com', password }),
      ),
    )
    const results = await Promise.all(
      challenges.map((challenge, i) =>
        call(i % 2 === 0 ? a : b, 'POST', '/api/auth/mfa/verify', {
          mfa_token: challenge.body!.mfa_token,
          code: backupCodes[0],
        }),
      ),
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 401)).toBe(true)
  })

  it('a two-factor policy changed on one applies on the other at the next request, both ways', async () => {
    const memberPassword = 'a third sound passphrase 44'
    expect(
      (
        await call(
          a,
          'POST',
          '/api/admin/users',
          { email: 'policy@example.com', name: 'Policy', password: memberPassword },
          adminToken,
        )
      ).status,
    ).toBe(201)
    const token = (
      await call(b, 'POST', '/api/auth/login', {
        email: 'policy@example.com',
        password: memberPassword,
      })
    ).body!.token as string
    // Used on B first: on SQLite it now holds the lookup's rows until the database changes.
    expect((await call(b, 'GET', '/api/tags', undefined, token)).status).toBe(200)

    const policy = (required: string, code: string) =>
      call(
        a,
        'PUT',
        '/api/admin/settings/two-factor-policy',
        { required, current_password: password, code },
        adminToken,
      )
    expect((await policy('everyone', backupCodes[1]!)).status).toBe(200)
    const refused = await call(b, 'GET', '/api/tags', undefined, token)
    expect(refused.status).toBe(403)
    expect(refused.body!.reason).toBe('MFA_ENROLLMENT_REQUIRED')
    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).body).toMatchObject({
      enabled: false,
      enrollment_required: true,
    })

    expect((await policy('off', backupCodes[2]!)).status).toBe(200)
    expect((await call(b, 'GET', '/api/tags', undefined, token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/mfa/status', undefined, token)).body).toMatchObject({
      enrollment_required: false,
    })
  })
})
