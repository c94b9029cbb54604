#!/usr/bin/env node
/**
 * node bench/sqlite-drivers.mjs — the SQLite driver choice
 * (docs/decisions/0001-node-sqlite.md): Node's built-in node:sqlite (the driver in use) against
 * better-sqlite3 (measured only when installed: `npm install --no-save better-sqlite3`) on the
 * query every authenticated request runs — a point select of a session joined to its user by text
 * primary keys — and the memory each adds to a bare process. Both use a prepared statement on one
 * file database in WAL.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'

const ROWS = 10_000
const ITERATIONS = 200_000
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-drivers-'))
const ids = Array.from({ length: ROWS }, () => [randomUUID(), randomUUID()])
const SCHEMA = `
  create table users (id text primary key, email text not null, name text not null, is_admin integer not null);
  create table sessions (id text primary key, user_id text not null references users(id), expires_at text not null);`
const SELECT = `select s.id, s.expires_at, u.id as user_id, u.email, u.name, u.is_admin
  from sessions s join users u on u.id = s.user_id where s.id = ? and s.expires_at > ?`

function measure(name, open) {
  const rssBefore = process.memoryUsage().rss
  const started = performance.now()
  const db = open(path.join(dir, `${name}.db`))
  const loadMs = performance.now() - started
  db.exec('pragma journal_mode = WAL')
  db.exec(SCHEMA)
  db.exec('begin')
  const addUser = db.prepare('insert into users values (?, ?, ?, 0)')
  const addSession = db.prepare(`insert into sessions values (?, ?, '2999-01-01T00:00:00.000Z')`)
  for (const [user, session] of ids) {
    addUser.run(user, `${user}@example.com`, 'Name')
    addSession.run(session, user)
  }
  db.exec('commit')
  const select = db.prepare(SELECT)
  const now = new Date().toISOString()
  for (let i = 0; i < 20_000; i++) select.get(ids[i % ROWS][1], now) // warm-up
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < ITERATIONS; i++) {
    if (select.get(ids[(i * 7919) % ROWS][1], now) === undefined) throw new Error('row not found')
  }
  const micros = Number(process.hrtime.bigint() - t0) / 1000 / ITERATIONS
  db.close()
  return {
    driver: name,
    point_select_us: Number(micros.toFixed(2)),
    first_open_ms: Math.round(loadMs),
    rss_added_mib: Math.round((process.memoryUsage().rss - rssBefore) / 1048576),
  }
}

const which = process.argv[2]
const results = []
if (which !== 'node:sqlite') {
  const loaded = await import('better-sqlite3').catch(() => null)
  if (loaded === null) results.push({ driver: 'better-sqlite3', skipped: 'not installed' })
  else results.push(measure('better-sqlite3', (file) => new loaded.default(file)))
}
if (which !== 'better-sqlite3') {
  const { DatabaseSync } = await import('node:sqlite')
  results.push(measure('node:sqlite', (file) => new DatabaseSync(file)))
}
fs.rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ node: process.version, iterations: ITERATIONS, results }, null, 2))
