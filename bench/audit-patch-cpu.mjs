#!/usr/bin/env node
/**
 * CPU time of one audited HTTP write on PostgreSQL (`PATCH /api/admin/teams/:id`, the scale bench's
 * audited write), without sockets and without lock waits, builds A/B in one process:
 *
 *   BENCH_DATABASE_URL=postgres://…/<a database of its own> \
 *     node bench/audit-patch-cpu.mjs <dist> [<dist> …] [--requests 3000] [--block 250]
 *
 * Each build's app (dist/app.js, on a schema of its own) answers PATCHes through Fastify's inject,
 * one at a time, in blocks alternating between the builds. Per request: this process's CPU time
 * (the service's share, without the socket work) and that of every PostgreSQL backend connected to
 * the bench's database (/proc/<pid>/schedstat; only the measured build is busy meanwhile). Medians
 * over the blocks. On a machine shared with other work these follow the code, not the load.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { runStatement } from './pg-statement.mjs'
import { postgresCpu, postgresCpuSince } from './proc.mjs'

const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const DATABASE = new URL(POSTGRES_URL).pathname.slice(1)
const PASSWORD = 'benchmark passphrase 1'
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '3000' },
    block: { type: 'string', default: '250' },
  },
})
const BLOCK = Number(values.block)
const BLOCKS = Math.ceil(Number(values.requests) / BLOCK)

const run = (statement) => runStatement(POSTGRES_URL, statement)

async function instance(dist, i) {
  const load = (file) => import(pathToFileURL(path.join(dist, file)).href)
  const [{ parseConfig }, { createDeps }, { migrateToLatest }, { buildApp }, users] =
    await Promise.all([
      load('config.js'),
      load('deps.js'),
      load('db/migrate.js'),
      load('app.js'),
      load('modules/users/service.js'),
    ])
  const schema = `audit_patch_${Date.now().toString(36)}_${i}`
  await run(`create schema "${schema}"`)
  const url = new URL(POSTGRES_URL)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-patch-cpu-'))
  const config = parseConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'error',
    RATE_LIMIT_GENERAL: '0',
  })
  const deps = createDeps(config)
  await migrateToLatest(deps.database)
  const app = await buildApp(deps)
  await app.ready()
  const row = await users.prepareNewUser(deps, {
    email: 'admin@example.com',
    name: 'Bench Admin',
    password: PASSWORD,
    isAdmin: true,
  })
  await users.insertNewUser(deps.db, row)
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: 'admin@example.com', password: PASSWORD },
  })
  const headers = { authorization: `Bearer ${login.json().token}` }
  const team = await app.inject({
    method: 'POST',
    url: '/api/admin/teams',
    headers,
    payload: { name: 'Bench team' },
  })
  const teamId = team.json().id
  let n = 0
  const patch = async () => {
    const response = await app.inject({
      method: 'PATCH',
      url: `/api/admin/teams/${teamId}`,
      headers,
      payload: { description: `Change ${n++}` },
    })
    if (response.statusCode !== 200) throw new Error(`PATCH answered ${response.statusCode}`)
  }
  const close = async () => {
    await app.close()
    await deps.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
    await run(`drop schema "${schema}" cascade`)
  }
  return { dist, patch, close, service: [], database: [] }
}

const sides = []
for (const [i, dist] of positionals.entries()) sides.push(await instance(path.resolve(dist), i))
const loadBefore = os.loadavg()
try {
  for (const side of sides) for (let i = 0; i < 100; i++) await side.patch()
  for (let b = 0; b < BLOCKS; b++)
    for (const side of sides) {
      const pgBefore = postgresCpu(DATABASE)
      const cpu = process.cpuUsage()
      for (let i = 0; i < BLOCK; i++) await side.patch()
      const used = process.cpuUsage(cpu)
      side.service.push((used.user + used.system) / BLOCK)
      side.database.push(postgresCpuSince(pgBefore, DATABASE).ns / 1000 / BLOCK)
    }
} finally {
  for (const side of sides) await side.close()
}
const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
for (const side of sides)
  console.log(
    `${side.dist}: CPU µs per PATCH, medians of ${BLOCKS} blocks of ${BLOCK}: service ` +
      `${median(side.service)}, PostgreSQL backends ${median(side.database)}`,
  )
const l = (xs) => xs.map((x) => x.toFixed(2)).join(' ')
console.log(`load ${l(loadBefore)} → ${l(os.loadavg())} on ${os.cpus().length} CPUs`)
