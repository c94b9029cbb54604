/**
 * Concurrency with real processes: two `node dist/server.js` processes on one database
 * (a PostgreSQL schema, or one SQLite file), each with its own connection pool and checkpointer,
 * take 200 concurrent audited changes between them. Afterwards the log has exactly one leaf per
 * event — the leaf numbers consecutive, no event twice, none outside the tree — and both
 * `switchboard audit verify --database` and `audit verify` of the verifiable export find it intact.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  makeTempDir,
  testEngine,
  type TestDatabase,
} from './helpers/database.js'
import {
  runProcess,
  sharedInstanceEnv,
  startServerProcess,
  type ServerProcess,
} from './helpers/process.js'

const CLI = path.resolve(import.meta.dirname, '../dist/cli.js')
const CHANGES = 200

let database: TestDatabase
let env: Record<string, string>
let a: ServerProcess
let b: ServerProcess

beforeAll(async () => {
  const dataDir = makeTempDir()
  database = await createTestDatabase(dataDir)
  env = {
    ...sharedInstanceEnv(database, dataDir, testEngine()),
    DATABASE_POOL_SIZE: '20',
    PUBLIC_URL: 'http://switchboard.test',
    RATE_LIMIT_GENERAL: '0',
  }
  a = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
  b = await startServerProcess({ ...env, DATA_DIR: makeTempDir() })
}, 60_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await database?.drop()
})

async function json(
  server: ServerProcess,
  method: string,
  url: string,
  token: string,
  body?: unknown,
) {
  const response = await server.fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  return { status: response.status, text: await response.text() }
}

describe('two server processes append to one audit tree', () => {
  it(`${CHANGES} concurrent audited changes give exactly one leaf per event, and the log verifies`, async () => {
    const setup = await a.fetch('/api/auth/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'ops@example.com',
        name: 'Ops',
        password: 'two processes one tree',
      }),
    })
    expect(setup.status).toBe(201)
    const token = ((await setup.json()) as { token: string }).token

    const results = await Promise.all(
      Array.from({ length: CHANGES }, (_, i) =>
        json(i % 2 === 0 ? a : b, 'PATCH', '/api/users/me', token, { name: `Concurrent ${i}` }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(CHANGES).fill(200))

    // The full verifiable export: every leaf in order, with its event, under a checkpoint made for
    // it.
    const exported = await json(b, 'GET', '/api/admin/audit-log/export?format=verifiable', token)
    expect(exported.status).toBe(200)
    const [headerLine, ...entryLines] = exported.text.trimEnd().split('\n')
    const header = JSON.parse(headerLine!) as {
      tree_size: number
      verifier_key: string
      subset: boolean
    }
    expect(header.subset).toBe(false)
    const entries = entryLines.map(
      (line) =>
        JSON.parse(line) as {
          leaf_index: number
          event?: { id: string; action: string; metadata: Record<string, unknown> }
        },
    )
    expect(entries).toHaveLength(header.tree_size)
    expect(entries.map((e) => e.leaf_index)).toEqual(
      Array.from({ length: header.tree_size }, (_, i) => i),
    )
    const ids = entries.map((e) => e.event!.id)
    expect(new Set(ids).size).toBe(ids.length)
    // Each change is one event, each event one leaf: the 200 updates are 200 leaves, none twice.
    const updates = entries.filter((e) => e.event!.action === 'user.update')
    expect(updates).toHaveLength(CHANGES)

    const file = path.join(makeTempDir(), 'export.jsonl')
    fs.writeFileSync(file, exported.text)
    const offline = await runProcess(
      CLI,
      ['audit', 'verify', file, '--key', header.verifier_key],
      {},
    )
    expect(offline, offline.output).toMatchObject({ code: 0 })
    expect(offline.output).toMatch(new RegExp(`^audit log intact: all ${header.tree_size} entries`))
    // The same on worker threads (the built worker module), which also find an edited event.
    const threaded = await runProcess(
      CLI,
      ['audit', 'verify', file, '--key', header.verifier_key, '--threads', '2'],
      {},
    )
    expect(threaded).toEqual(offline)
    const edited = path.join(makeTempDir(), 'edited.jsonl')
    const at = exported.text.lastIndexOf('"action":"user.update"')
    fs.writeFileSync(
      edited,
      `${exported.text.slice(0, at)}"action":"user.updatE"${exported.text.slice(at + '"action":"user.update"'.length)}`,
    )
    const found = await runProcess(
      CLI,
      ['audit', 'verify', edited, '--key', header.verifier_key, '--threads', '2'],
      {},
    )
    expect(found, found.output).toMatchObject({ code: 1 })
    expect(found.output).toMatch(
      /^audit log NOT intact: entry \d+: edited — the event does not match its leaf hash/,
    )

    // The live database: every leaf against its event, the nodes, the checkpoints both processes
    // signed, nothing outside the tree.
    const live = await runProcess(CLI, ['audit', 'verify', '--database'], {
      ...env,
      DATA_DIR: makeTempDir(),
    })
    expect(live, live.output).toMatchObject({ code: 0 })
    const leaves = Number(/audit log intact: (\d+) leaves/.exec(live.output)![1])
    // The database may have grown by the export's own event since: never by a gap or a duplicate.
    expect(leaves).toBeGreaterThanOrEqual(header.tree_size)
  }, 240_000)
})
