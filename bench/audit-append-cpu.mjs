#!/usr/bin/env node
/**
 * CPU time of one audited transaction on PostgreSQL, without HTTP and without any lock wait, builds
 * A/B in one process:
 *
 *   BENCH_DATABASE_URL=postgres://…/<database> node bench/audit-append-cpu.mjs <dist> [<dist> …]
 *     [--transactions 2000] [--block 200]
 *
 * Each build gets a schema of its own and a pool of one connection; its transactions (an update of
 * a settings row — the change — and recordAudit, as bench/audit-append-rig.mjs) run one at a time,
 * in blocks alternating between the builds, so both see the same machine. Per transaction: this
 * process's CPU time (the service's share) and that one backend's (/proc/<pid>/schedstat: on-CPU
 * nanoseconds, exact whatever else runs). Medians over the blocks.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { CompiledQuery } from 'kysely'
import { runStatement } from './pg-statement.mjs'

const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    transactions: { type: 'string', default: '2000' },
    block: { type: 'string', default: '200' },
  },
})
const BLOCK = Number(values.block)
const BLOCKS = Math.ceil(Number(values.transactions) / BLOCK)

const run = (statement) => runStatement(POSTGRES_URL, statement)

const backendNs = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])

async function prepare(dist, i) {
  const schema = `bench_cpu_${Date.now().toString(36)}_${i}`
  await run(`create schema "${schema}"`)
  const url = new URL(POSTGRES_URL)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const load = (p) => import(path.join(dist, p))
  const [{ parseConfig }, { createDeps }, { createLogger }, { migrateToLatest }, { recordAudit }] =
    await Promise.all([
      load('config.js'),
      load('deps.js'),
      load('logger.js'),
      load('db/migrate.js'),
      load('modules/audit/service.js'),
    ])
  const config = parseConfig({
    DATABASE_URL: url.toString(),
    DATABASE_POOL_SIZE: '1',
    LOG_LEVEL: 'silent',
  })
  const deps = createDeps(config, { logger: createLogger({ logLevel: 'silent' }) })
  await migrateToLatest(deps.database)
  const key = 'cpu-0'
  await deps.db
    .insertInto('settings')
    .values({ key, value: '0', updated_at: new Date().toISOString() })
    .execute()
  const { rows } = await deps.db.executeQuery(CompiledQuery.raw('select pg_backend_pid() as pid'))
  const pid = String(rows[0].pid)
  const ctx = { ip: '198.51.100.7', userAgent: 'cpu' }
  let count = 0
  const transaction = () =>
    deps.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('settings')
        .set({ value: JSON.stringify(count++) })
        .where('key', '=', key)
        .execute()
      await recordAudit(tx, deps.clock, ctx, {
        action: 'cpu.change',
        actor: null,
        target: { type: 'setting', id: key },
        metadata: { count },
      })
    })
  return { dist, schema, deps, pid, transaction, client: [], backend: [] }
}

const sides = []
for (const [i, dist] of positionals.entries()) sides.push(await prepare(path.resolve(dist), i))
const loadBefore = os.loadavg()
try {
  for (const side of sides) for (let i = 0; i < 50; i++) await side.transaction()
  for (let b = 0; b < BLOCKS; b++)
    for (const side of sides) {
      const ns = backendNs(side.pid)
      const cpu = process.cpuUsage()
      for (let i = 0; i < BLOCK; i++) await side.transaction()
      const used = process.cpuUsage(cpu)
      side.client.push((used.user + used.system) / BLOCK)
      side.backend.push((backendNs(side.pid) - ns) / 1000 / BLOCK)
    }
} finally {
  for (const side of sides) {
    await side.deps.close()
    await run(`drop schema "${side.schema}" cascade`)
  }
}
const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
for (const side of sides)
  console.log(
    `${side.dist}: CPU µs per audited transaction, medians of ${BLOCKS} blocks of ${BLOCK}: ` +
      `this process ${median(side.client)}, its backend ${median(side.backend)}`,
  )
const l = (xs) => xs.map((x) => x.toFixed(2)).join(' ')
console.log(`load ${l(loadBefore)} → ${l(os.loadavg())} on ${os.cpus().length} CPUs`)
