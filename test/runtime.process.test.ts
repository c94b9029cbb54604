/**
 * The built service on the Node.js running the suite (24 in CI): it survives load followed by
 * forced garbage collection and idling — better-sqlite3 12 aborted there on Node ≥ 24.19 when V8's
 * idle GC freed prepared statements — and an unsupported Node is refused with one line.
 */
import { afterAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  makeTempDir,
  testEngine,
  type TestDatabase,
} from './helpers/database.js'
import {
  SERVER_ENTRY,
  runProcess,
  startServerProcess,
  type ServerProcess,
} from './helpers/process.js'
import path from 'node:path'

const CLI_ENTRY = path.join(path.dirname(SERVER_ENTRY), 'cli.js')
const running: ServerProcess[] = []
const databases: TestDatabase[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
  await Promise.all(databases.map((database) => database.drop()))
})

const FAST_HASH = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '1' }

async function call(
  base: string,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

describe('Node.js 24: load, forced garbage collection, idle', () => {
  it('keeps the process alive and serving', async () => {
    const database = await createTestDatabase(makeTempDir())
    databases.push(database)
    const server = await startServerProcess({
      DATA_DIR: makeTempDir(),
      ...(testEngine() === 'postgres' && { DATABASE_URL: database.url }),
      ...FAST_HASH,
      RATE_LIMIT_GENERAL: '0',
      // SIGUSR2 starts a full garbage collection every 50 ms in the service process, until it ends.
      NODE_OPTIONS: `--expose-gc --import=data:text/javascript,process.once('SIGUSR2',()=>setInterval(()=>globalThis.gc(),50).unref())`,
    })
    running.push(server)
    const base = server.baseUrl
    server.child.kill('SIGUSR2')

    const setup = await call(base, 'POST', '/api/auth/setup', undefined, {
      email: 'gc@example.com',
      name: 'GC',
      password: 'collect the garbage now',
    })
    expect(setup.status).toBe(201)
    const jwt = setup.json.token as string
    const sb = (
      await call(base, 'POST', '/api/tokens', jwt, {
        name: 'gc',
        permissions: ['profile:read', 'links:read'],
      })
    ).json.token as string

    // Load for 3 s: reads by both credentials, writes, sign-ins and sign-outs (so statements,
    // sessions and tokens come and go), ten at a time.
    let requests = 0
    const until = Date.now() + 3000
    const worker = async (n: number) => {
      while (Date.now() < until) {
        const login = await call(base, 'POST', '/api/auth/login', undefined, {
          email: 'gc@example.com',
          password: 'collect the garbage now',
        })
        // Ten sign-ins at once from one address may exceed the hashing bound's per-client share on
        // a loaded machine: that 503 is the bound working, not the process failing; try again.
        if (login.status === 503) continue
        expect(login.status).toBe(200)
        const token = login.json.token as string
        for (const [url, credential] of [
          ['/api/users/me', token],
          ['/api/links', sb],
          ['/api/users/me/sessions', token],
          ['/api/tags', token],
        ] as const) {
          expect((await call(base, 'GET', url, credential)).status).toBe(200)
          requests++
        }
        expect(
          (await call(base, 'POST', '/api/tags', token, { name: `t${n}-${requests++}` })).status,
        ).toBe(201)
        expect((await call(base, 'POST', '/api/auth/logout', token)).status).toBeLessThan(300)
        expect((await call(base, 'GET', '/api/users/me', token)).status).toBe(401)
      }
    }
    await Promise.all(Array.from({ length: 10 }, (_, n) => worker(n)))
    expect(requests).toBeGreaterThan(40)

    // Idle for 3 s with the collector still forced: the process must not abort.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    expect(server.child.exitCode).toBeNull()
    expect(server.child.signalCode).toBeNull()
    expect((await call(base, 'GET', '/api/users/me', jwt)).status).toBe(200)
    expect(server.output()).not.toMatch(/Assertion failed|FATAL ERROR/)
    expect(await server.stop()).toBe(0)
  }, 30_000)
})

describe('an unsupported Node.js', () => {
  it.each([
    ['the server', SERVER_ENTRY, []],
    ['the CLI', CLI_ENTRY, ['migrate']],
  ])('stops %s at once with one line naming the versions it needs', async (_name, entry, args) => {
    const versions = ['20.19.0', '23.11.0']
    const results = await Promise.all(
      versions.map((version) =>
        runProcess(entry, args, {
          DATA_DIR: makeTempDir(),
          // Presents the running Node as an older one before the entry point loads.
          NODE_OPTIONS: `--import=data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`,
        }),
      ),
    )
    for (const [i, result] of results.entries()) {
      expect(result.code).toBe(1)
      expect(result.output).toBe(
        `switchboard: needs Node.js 24 LTS (recommended) or 22 LTS (22.16 or later); this is Node.js ${versions[i]}\n`,
      )
    }
  })
})
