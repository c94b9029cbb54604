/** The service as a process: first start on a fresh data directory, bad configuration, shutdown. */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, makeTempDir, testEngine } from './helpers/database.js'
import {
  SERVER_ENTRY,
  runProcess,
  startServerProcess,
  type ServerProcess,
} from './helpers/process.js'
import {
  EXPOSE_GC_FLAG,
  HEAP_GROWING_FLAG,
  MALLOC_TRIM_THRESHOLD,
  NO_MAGLEV_FLAG,
  NO_PRETENURING_FLAG,
  SEMI_SPACE_FLAG,
} from '../src/process-settings.js'

const running: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
})

describe('npm start on a fresh machine', () => {
  it('migrates the database, generates and keeps the secrets, and serves', async () => {
    const dataDir = path.join(makeTempDir(), 'data')
    const database = await createTestDatabase(makeTempDir())
    const env = {
      DATA_DIR: dataDir,
      // SQLite runs on its default path under DATA_DIR; PostgreSQL on this run's schema.
      ...(testEngine() === 'postgres' && { DATABASE_URL: database.url }),
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_ITERATIONS: '1',
    }
    const server = await startServerProcess(env)
    running.push(server)

    // It runs with its process settings, applied by replacing itself (same PID) before loading
    // anything.
    const options = fs.readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0')
    expect(options).toEqual(
      expect.arrayContaining([
        SEMI_SPACE_FLAG,
        NO_MAGLEV_FLAG,
        HEAP_GROWING_FLAG,
        NO_PRETENURING_FLAG,
        EXPOSE_GC_FLAG,
      ]),
    )
    expect(fs.readFileSync(`/proc/${server.child.pid}/environ`, 'utf8').split('\0')).toContain(
      `MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD}`,
    )
    expect(fs.statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600)
    if (testEngine() === 'sqlite')
      expect(fs.existsSync(path.join(dataDir, 'switchboard.db'))).toBe(true)
    expect((await server.fetch('/api/health/ready')).status).toBe(200)

    const setup = await server.fetch('/api/auth/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'admin@example.com',
        name: 'Admin',
        password: 'first start passphrase',
      }),
    })
    expect(setup.status).toBe(201)
    const { token } = (await setup.json()) as { token: string }

    // A restart keeps the generated secrets: the session survives.
    expect(await server.stop()).toBe(0)
    const again = await startServerProcess(env)
    running.push(again)
    const me = await again.fetch('/api/users/me', { headers: { authorization: `Bearer ${token}` } })
    expect(me.status).toBe(200)
    expect(again.output()).not.toContain(token)
    expect(await again.stop()).toBe(0)
    await database.drop()
  })
})

describe('invalid configuration', () => {
  it('stops start-up with one line per problem and a non-zero exit code', async () => {
    const result = await runProcess(SERVER_ENTRY, [], {
      PORT: 'eighty',
      JWT_SECRET: 'too-short',
      DATABASE_URL: 'mysql://x',
      DATA_DIR: makeTempDir(),
    })
    expect(result.code).toBe(1)
    expect(result.output).toContain('Invalid configuration')
    expect(result.output).toMatch(/- PORT: /)
    expect(result.output).toMatch(/- JWT_SECRET: /)
    expect(result.output).not.toContain('too-short')
  })
})

describe('graceful shutdown', () => {
  it('finishes an in-flight request after SIGTERM, refuses new connections, and exits 0', async () => {
    const server = await startServerProcess({
      DATA_DIR: makeTempDir(),
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_ITERATIONS: '1',
    })
    running.push(server)
    const port = Number(new URL(server.baseUrl).port)
    const body = JSON.stringify({ email: 'late@example.com', password: 'an unknown passphrase' })

    // The request is in flight once the server has answered its `Expect: 100-continue`: Node
    // sends "100 Continue" when it hands the request to Fastify. Each step waits for what it needs
    // to have happened, not for a fixed time, so a loaded machine only makes it slower.
    const socket = net.connect(port, '127.0.0.1')
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    let response = ''
    socket.on('data', (chunk) => (response += chunk.toString()))
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    )
    await until(() => response.includes('\r\n\r\n'))
    expect(response).toMatch(/^HTTP\/1\.1 100 /)

    server.child.kill('SIGTERM')
    await until(() => server.output().includes('shutting down'))
    await until(() => refusesConnections(port))
    socket.write(body)
    await closed

    expect(response).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /)
    expect(await server.exited).toBe(0)
  })
})

/** Waits until `condition` holds, checking every 20 ms; fails after 20 s. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${condition.toString()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Whether a new connection to the port is refused (a connection made is closed at once). */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(port, '127.0.0.1')
    probe.once('connect', () => {
      probe.destroy()
      resolve(false)
    })
    probe.once('error', () => resolve(true))
  })
}
