/**
 * Deprovisioning across two real server processes (dist/server.js) on one database — a
 * PostgreSQL database, or one SQLite file — as a deployment behind a load balancer runs them
 *: a SCIM `active: false` sent to instance A refuses the person's session and API
 * token on instance B at the very next request, though B had just accepted both; a SCIM DELETE on
 * A does the same for a second person. No cache to wait out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  makeTempDir,
  testEngine,
  type TestDatabase,
} from '../../../test/helpers/database.js'
import {
  sharedInstanceEnv,
  startServerProcess,
  type ServerProcess,
} from '../../../test/helpers/process.js'

const SCIM = 'application/scim+json'
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
let database: TestDatabase
let a: ServerProcess
let b: ServerProcess
let adminToken: string
let scimToken: string

beforeAll(async () => {
  const dataDir = makeTempDir()
  database = await createTestDatabase(dataDir)
  const env = { ...sharedInstanceEnv(database, dataDir, testEngine()), RATE_LIMIT_GENERAL: '0' }
  a = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
  b = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
  const setup = await api(a, 'POST', '/api/auth/setup', {
    email: 'ops@example.com',
    name: 'Ops',
    password: 'two instance passphrase',
  })
  expect(setup.status).toBe(201)
  adminToken = setup.body.token as string
  const credential = await api(
    a,
    'POST',
    '/api/admin/scim/credentials',
    { name: 'Entra', current_password: 'two instance passphrase' },
    adminToken,
  )
  expect(credential.status).toBe(201)
  scimToken = credential.body.token as string
}, 180_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await database?.drop()
})

async function api(
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
    body: (response.status === 204 ? {} : await response.json()) as Record<string, unknown>,
  }
}

/** A SCIM request as the identity provider sends it (outside the OpenAPI document: plain fetch). */
async function scim(server: ServerProcess, method: string, url: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}/scim/v2${url}`, {
    method,
    headers: {
      authorization: `Bearer ${scimToken}`,
      ...(body !== undefined && { 'content-type': SCIM }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  return {
    status: response.status,
    body: response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>),
  }
}

/** A person with a password, signed in on B, with an API token made on B; both used on B. */
async function personOnB(email: string) {
  const password = 'a sound passphrase 4242'
  const created = await api(
    a,
    'POST',
    '/api/admin/users',
    { email, name: 'Leaver', password },
    adminToken,
  )
  expect(created.status).toBe(201)
  const session = (await api(b, 'POST', '/api/auth/login', { email, password })).body
    .token as string
  const token = (
    await api(b, 'POST', '/api/tokens', { name: 'laptop', permissions: ['profile:read'] }, session)
  ).body.token as string
  // Used twice on B first: the first use also records it (a write); the second is read only.
  for (let i = 0; i < 2; i++) {
    expect((await api(b, 'GET', '/api/users/me', undefined, session)).status).toBe(200)
    expect((await api(b, 'GET', '/api/users/me', undefined, token)).status).toBe(200)
  }
  return { id: created.body.id as string, session, token }
}

describe('SCIM deprovisioning on two server processes, one database', () => {
  it('Entra\'s disable on A (Replace active "False") refuses the session and the token on B at the next request', async () => {
    const person = await personOnB('leaver@example.com')
    const patched = await scim(a, 'PATCH', `/Users/${person.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    })
    expect(patched.status).toBe(200)
    expect(patched.body.active).toBe(false)
    expect((await api(b, 'GET', '/api/users/me', undefined, person.session)).status).toBe(401)
    expect((await api(b, 'GET', '/api/users/me', undefined, person.token)).status).toBe(401)
    // B reads the same user as inactive through SCIM too.
    expect((await scim(b, 'GET', `/Users/${person.id}`)).body.active).toBe(false)
  })

  it('a SCIM DELETE on A refuses the session and the token on B at the next request', async () => {
    const person = await personOnB('deleted@example.com')
    expect((await scim(a, 'DELETE', `/Users/${person.id}`)).status).toBe(204)
    expect((await api(b, 'GET', '/api/users/me', undefined, person.session)).status).toBe(401)
    expect((await api(b, 'GET', '/api/users/me', undefined, person.token)).status).toBe(401)
    expect((await scim(b, 'GET', `/Users/${person.id}`)).status).toBe(404)
  })

  it("both instances' SCIM requests are in the one request log", async () => {
    // Each instance writes its entry after its answer has gone out: polled.
    const seen = async () => {
      const log = await api(b, 'GET', '/api/admin/scim/requests', undefined, adminToken)
      return (log.body.items as Array<{ method: string; path: string }>).map(
        (r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, ':id')}`,
      )
    }
    await expect
      .poll(seen, { timeout: 10_000 })
      .toEqual(
        expect.arrayContaining([
          'PATCH /scim/v2/Users/:id',
          'GET /scim/v2/Users/:id',
          'DELETE /scim/v2/Users/:id',
        ]),
      )
  })
})
