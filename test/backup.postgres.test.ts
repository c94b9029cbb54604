/**
 * The PostgreSQL side of `switchboard backup` / `restore`: the commands print the
 * pg_dump and pg_restore invocations for the configured database (password masked); run as
 * printed, they copy this run's test schema into a fresh database, and the service started on it
 * finds the data.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, makeTempDir, testPostgresUrl } from './helpers/database.js'
import { runProcess, startServerProcess, type ServerProcess } from './helpers/process.js'

const CLI = path.resolve(import.meta.dirname, '../dist/cli.js')
const FAST_HASHING = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '1' }

const running: ServerProcess[] = []
const databases: string[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
  const admin = new pg.Client({ connectionString: testPostgresUrl() })
  await admin.connect()
  for (const name of databases) await admin.query(`drop database if exists "${name}" with (force)`)
  await admin.end()
})

/** The command line after the line that introduces it. */
function printedCommand(output: string, program: string): string {
  const line = output.split('\n').find((text) => text.trimStart().startsWith(program))
  expect(line, output).toBeDefined()
  return line!.trim()
}

describe('PostgreSQL backup and restore with the printed commands', () => {
  it('pg_dump of the database restored into a fresh one: the service starts on it and finds the data', async () => {
    const dataDir = makeTempDir()
    const database = await createTestDatabase(dataDir)
    const server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      ...FAST_HASHING,
    })
    running.push(server)
    const setup = await server.fetch('/api/auth/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'admin@example.com',
        name: 'Admin',
        password: 'postgres backup passphrase',
      }),
    })
    expect(setup.status).toBe(201)
    const { token } = (await setup.json()) as { token: string }
    const created: string[] = []
    for (let n = 0; n < 5; n++) {
      const response = await server.fetch('/api/links', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://example.com/pg/${n}`, title: `PG ${n}` }),
      })
      expect(response.status).toBe(201)
      created.push(((await response.json()) as { id: string }).id)
    }

    // pg_dump runs in one snapshot, so the service may keep running while it does.
    const dumpFile = path.join(makeTempDir(), 'switchboard.dump')
    const backup = await runProcess(CLI, ['backup', dumpFile], {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
    })
    expect(backup.code).toBe(3)
    expect(backup.output).toContain('PostgreSQL is backed up with its own tool')
    expect(backup.output).toContain(`keep ${path.join(dataDir, 'secrets.json')} with it`)
    const dump = printedCommand(backup.output, 'pg_dump')
    const schema = new URL(database.url).searchParams
      .get('options')!
      .match(/search_path=(\S+)/)![1]!
    expect(dump).toContain(`--schema=${schema}`)
    execFileSync('sh', ['-c', dump], { stdio: 'pipe' })
    expect(fs.statSync(dumpFile).size).toBeGreaterThan(0)
    expect(await server.stop()).toBe(0)

    // A fresh database on the same server, reached with the same schema selection.
    const fresh = `sbt_restore_${randomBytes(4).toString('hex')}`
    databases.push(fresh)
    const admin = new pg.Client({ connectionString: testPostgresUrl() })
    await admin.connect()
    await admin.query(`create database "${fresh}"`)
    await admin.end()
    const freshUrl = new URL(database.url)
    freshUrl.pathname = `/${fresh}`

    const restore = await runProcess(CLI, ['restore', dumpFile], {
      DATA_DIR: dataDir,
      DATABASE_URL: freshUrl.toString(),
    })
    expect(restore.code).toBe(3)
    expect(restore.output).toContain('then start the service: it applies pending migrations')
    execFileSync('sh', ['-c', printedCommand(restore.output, 'pg_restore')], { stdio: 'pipe' })

    const restored = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: freshUrl.toString(),
      ...FAST_HASHING,
    })
    running.push(restored)
    const links = await restored.fetch('/api/links?limit=100', {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(links.status).toBe(200)
    const ids = ((await links.json()) as { items: { id: string }[] }).items.map((item) => item.id)
    expect(ids.sort()).toEqual([...created].sort())
    expect(await restored.stop()).toBe(0)
    // Two server starts, a dump and a restore: more than the default on a loaded machine.
  }, 120_000)

  it('masks the password of DATABASE_URL in the printed commands', async () => {
    const url = 'postgres://switchboard:s3cret-pa55@db.internal:5433/switchboard?sslmode=require'
    for (const command of ['backup', 'restore']) {
      const result = await runProcess(CLI, [command, '/var/backups/sb.dump'], {
        DATA_DIR: makeTempDir(),
        DATABASE_URL: url,
      })
      expect(result.code).toBe(3)
      expect(result.output).not.toContain('s3cret-pa55')
      expect(result.output).toContain('PGPASSWORD=*** pg_')
      expect(result.output).toContain(
        'postgres://switchboard@db.internal:5433/switchboard?sslmode=require',
      )
    }
  })
})
