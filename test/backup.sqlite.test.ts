/**
 * `switchboard backup` and `switchboard restore` on SQLite, as an operator runs them: a
 * backup taken while the service takes concurrent writes (links and API tokens) restores into a
 * fresh data directory, the service starts on it and finds every write acknowledged before the
 * backup began; restore refuses a running service's database, an occupied target without --force,
 * and corrupted or foreign files, each with a clear message.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTempDir } from './helpers/database.js'
import { runProcess, startServerProcess, type ServerProcess } from './helpers/process.js'

const CLI = path.resolve(import.meta.dirname, '../dist/cli.js')
const FAST_HASHING = {
  PASSWORD_HASH_MEMORY_KIB: '1024',
  PASSWORD_HASH_ITERATIONS: '1',
  RATE_LIMIT_GENERAL: '0',
}

const running: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')))
})

interface Acknowledged {
  id: string
  /** performance.now() when the 201 arrived. */
  at: number
}

async function listAll(server: ServerProcess, token: string, route: string): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const response = await server.fetch(
      `${route}?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    )
    expect(response.status).toBe(200)
    const page = (await response.json()) as { items: { id: string }[]; next_cursor: string | null }
    ids.push(...page.items.map((item) => item.id))
    cursor = page.next_cursor
  } while (cursor !== null)
  return ids
}

describe('backup under write load, restore into a fresh directory', () => {
  const source = path.join(makeTempDir(), 'data')
  const backups = makeTempDir()
  const backupFile = path.join(backups, 'switchboard-backup.db')
  let server: ServerProcess
  let token: string

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: source, ...FAST_HASHING })
    running.push(server)
    const setup = await server.fetch('/api/auth/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'admin@example.com',
        name: 'Admin',
        password: 'backup test passphrase',
      }),
    })
    expect(setup.status).toBe(201)
    token = ((await setup.json()) as { token: string }).token
  })

  it('takes a consistent, verified backup while writes go on, and the restored instance has every acknowledged write', async () => {
    const links: Acknowledged[] = []
    const tokens: Acknowledged[] = []
    let stop = false
    let sequence = 0
    const create = async (route: string, body: object, into: Acknowledged[]) => {
      const response = await server.fetch(route, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(201)
      into.push({ id: ((await response.json()) as { id: string }).id, at: performance.now() })
    }
    // Four writers of links; one of API tokens (at most 10 per user in 15 minutes, so 8 of them).
    const linkWriters = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const n = sequence++
        await create(
          '/api/links',
          { url: `https://example.com/page/${n}`, title: `Page ${n}` },
          links,
        )
      }
    })
    const tokenWriter = (async () => {
      for (let n = 0; n < 8 && !stop; n++) {
        await create('/api/tokens', { name: `token ${n}`, permissions: ['links:read'] }, tokens)
        await new Promise((resolve) => setTimeout(resolve, 30))
      }
    })()

    while (links.length < 40 || tokens.length < 3)
      await new Promise((resolve) => setTimeout(resolve, 10))
    const backupStarted = performance.now()
    const backup = await runProcess(CLI, ['backup', backupFile], { DATA_DIR: source })
    const linksDuringBackup = links.length
    // Writes keep coming after the backup; none of them may be needed, all of the earlier ones are.
    while (links.length < linksDuringBackup + 20)
      await new Promise((resolve) => setTimeout(resolve, 10))
    stop = true
    await Promise.all([...linkWriters, tokenWriter])

    expect(backup.output).toMatch(
      /^backup written to .*switchboard-backup\.db \(\d+ bytes, \d+ migrations, integrity check ok\)\n/,
    )
    expect(backup.output).toContain(`keep ${path.join(source, 'secrets.json')} with it`)
    expect(backup.code).toBe(0)
    expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600)
    // Atomic: nothing but the backup itself is left in its directory.
    expect(fs.readdirSync(backups)).toEqual(['switchboard-backup.db'])

    const acknowledgedBefore = (list: Acknowledged[]) =>
      list.filter((write) => write.at < backupStarted).map((write) => write.id)
    const linksBefore = acknowledgedBefore(links)
    const tokensBefore = acknowledgedBefore(tokens)
    expect(linksBefore.length).toBeGreaterThanOrEqual(40)

    // A running service's database is never replaced, not even with --force.
    const refused = await runProcess(CLI, ['restore', backupFile, '--force'], { DATA_DIR: source })
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(
      `switchboard: the service is running (PID ${server.child.pid}) on ${path.join(source, 'switchboard.db')}; stop it first`,
    )
    expect(await server.stop()).toBe(0)

    const target = path.join(makeTempDir(), 'data')
    const restored = await runProcess(CLI, ['restore', backupFile], { DATA_DIR: target })
    expect(restored.output).toContain(
      `restored ${path.join(target, 'switchboard.db')} from ${backupFile}`,
    )
    expect(restored.output).toContain("copy the backed-up instance's secrets.json")
    expect(restored.code).toBe(0)
    expect(fs.existsSync(path.join(target, 'secrets.json'))).toBe(false)
    expect(fs.statSync(path.join(target, 'switchboard.db')).mode & 0o777).toBe(0o600)
    fs.copyFileSync(path.join(source, 'secrets.json'), path.join(target, 'secrets.json'))
    fs.chmodSync(path.join(target, 'secrets.json'), 0o600)

    const again = await startServerProcess({ DATA_DIR: target, ...FAST_HASHING })
    running.push(again)
    // The session made before the backup still signs in: same database rows, same keys.
    const restoredLinks = new Set(await listAll(again, token, '/api/links'))
    const restoredTokens = new Set(await listAll(again, token, '/api/tokens'))
    expect(linksBefore.filter((id) => !restoredLinks.has(id))).toEqual([])
    expect(tokensBefore.filter((id) => !restoredTokens.has(id))).toEqual([])
    // Nothing the service never acknowledged, nothing from after the backup finished.
    const allLinks = new Set(links.map((link) => link.id))
    expect([...restoredLinks].filter((id) => !allLinks.has(id))).toEqual([])
    expect(restoredLinks.size).toBeLessThanOrEqual(linksDuringBackup + 4)
    expect(await again.stop()).toBe(0)

    // The target now has data: a second restore needs --force, and then replaces it.
    const occupied = await runProcess(CLI, ['restore', backupFile], { DATA_DIR: target })
    expect(occupied.code).toBe(1)
    expect(occupied.output).toContain(
      `switchboard: ${path.join(target, 'switchboard.db')} already holds a database; pass --force to replace it`,
    )
    const forced = await runProcess(CLI, ['restore', backupFile, '--force'], { DATA_DIR: target })
    expect(forced.code).toBe(0)
    expect(fs.readdirSync(target).sort()).toEqual(['secrets.json', 'switchboard.db'])
    // Two server starts, the load, five CLI runs: more than the default on a loaded machine.
  }, 120_000)

  it('refuses corrupted, truncated and foreign files with a clear message and leaves the target untouched', async () => {
    const corrupted = path.join(backups, 'corrupted.db')
    fs.copyFileSync(backupFile, corrupted)
    const size = fs.statSync(corrupted).size
    const fd = fs.openSync(corrupted, 'r+')
    // Every page after the first overwritten: the schema survives, the tables' b-trees do not.
    for (let offset = 4096; offset < size; offset += 4096)
      fs.writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, offset)
    fs.closeSync(fd)
    const truncated = path.join(backups, 'truncated.db')
    fs.writeFileSync(truncated, fs.readFileSync(backupFile).subarray(0, 10_000))
    const text = path.join(backups, 'notes.txt')
    fs.writeFileSync(text, 'not a database at all\n')
    const foreign = path.join(backups, 'foreign.db')
    const { DatabaseSync } = await import('node:sqlite')
    const other = new DatabaseSync(foreign)
    other.exec('create table notes (body text)')
    other.close()

    const cases: [string, RegExp][] = [
      [
        corrupted,
        /failed SQLite's integrity check|cannot be read as a database: database disk image is malformed/,
      ],
      [truncated, /failed SQLite's integrity check|cannot be read as a database/],
      [text, /is not an SQLite database/],
      [foreign, /is not a Switchboard database \(it has no migration history\)/],
    ]
    for (const [file, message] of cases) {
      const target = path.join(makeTempDir(), 'data')
      const result = await runProcess(CLI, ['restore', file], { DATA_DIR: target })
      expect(result.code, file).toBe(1)
      expect(result.output, file).toMatch(
        new RegExp(
          `^switchboard: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${message.source}`,
        ),
      )
      expect(fs.existsSync(path.join(target, 'switchboard.db')), file).toBe(false)
      expect(fs.readdirSync(target), file).toEqual([])
    }
    const missing = await runProcess(CLI, ['restore', path.join(backups, 'absent.db')], {
      DATA_DIR: makeTempDir(),
    })
    expect(missing).toEqual({
      code: 1,
      output: `switchboard: ${path.join(backups, 'absent.db')} is not a file\n`,
    })
  }, 60_000)

  it('says there is nothing to back up before the first start, and refuses to overwrite the database with its own backup', async () => {
    const empty = makeTempDir()
    const none = await runProcess(CLI, ['backup', path.join(backups, 'none.db')], {
      DATA_DIR: empty,
    })
    expect(none).toEqual({
      code: 1,
      output: `switchboard: there is no database at ${path.join(empty, 'switchboard.db')} yet (the service creates it on first start)\n`,
    })
    const self = await runProcess(CLI, ['backup', path.join(source, 'switchboard.db')], {
      DATA_DIR: source,
    })
    expect(self).toEqual({
      code: 1,
      output: 'switchboard: the backup file must not be the database itself\n',
    })
    const usage = await runProcess(CLI, ['backup'], { DATA_DIR: source })
    expect(usage.code).toBe(2)
    expect(usage.output).toMatch(/^backup needs exactly one file\n/)
  }, 60_000)
})
