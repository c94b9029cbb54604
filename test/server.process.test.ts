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
    const { port } = new URL(server.baseUrl)
    const body = JSON.stringify({ email: 'late@example.com', password: 'an unknown passphrase' })

    // Send the headers and half the body, signal, then the rest: the request is in flight.
    const socket = net.connect(Number(port), '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let response = ''
    socket.on('data', (chunk) => (response += chunk.toString()))
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    server.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await expect(fetch(`${server.baseUrl}/api/health`)).rejects.toThrow()
    socket.write(body.slice(10))
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))

    expect(response).toMatch(/^HTTP\/1\.1 401 /)
    expect(await server.exited).toBe(0)
    expect(server.output()).toContain('shutting down')
  })
})
