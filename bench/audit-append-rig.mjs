#!/usr/bin/env node
/**
 * Audited transactions per second on PostgreSQL without HTTP: what the tree head's serialisation
 * allows when the CPU of request handling is taken out. Builds A/B in alternating rounds:
 *
 *   node bench/audit-append-rig.mjs <dist> [<dist> …] [--workers 20] [--seconds 5] [--rounds 3]
 *
 * For each round and build: one process, then two processes at once (two instances), each with
 * <workers> concurrent loops of one transaction — an update of a row of its own (the change) and
 * recordAudit — over the build's own pool (DATABASE_POOL_SIZE = workers) on a schema of its own.
 * Beside the rate, the CPU time per transaction of the processes (process.cpuUsage over their
 * loops) and of the PostgreSQL backends connected to the bench's database (BENCH_DATABASE_URL:
 * give it a database of its own); with --workers 1 these are the costs without any lock wait.
 */
import { fork } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { postgresCpu, postgresCpuSince } from './proc.mjs'

const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
/** PostgreSQL's CPU counts the backends connected to this database (bench/proc.mjs). */
const DATABASE = new URL(POSTGRES_URL).pathname.slice(1)

async function run(sql) {
  const client = new pg.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(sql)
  await client.end()
}

/** A child: `workers` loops for `seconds` on the schema's database; reports its count. */
async function child({ dist, url, workers, seconds, instance }) {
  const load = (p) => import(path.join(dist, p))
  const [{ parseConfig }, { createDeps }, { createLogger }, { recordAudit }] = await Promise.all([
    load('config.js'),
    load('deps.js'),
    load('logger.js'),
    load('modules/audit/service.js'),
  ])
  const deps = createDeps(
    parseConfig({
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: String(workers + 2),
      LOG_LEVEL: 'silent',
    }),
    { logger: createLogger({ logLevel: 'silent' }) },
  )
  const ctx = { ip: '198.51.100.7', userAgent: 'rig' }
  let count = 0
  const end = Date.now() + seconds * 1000
  const loop = async (w) => {
    const key = `rig-${instance}-${w}`
    while (Date.now() < end) {
      await deps.db.transaction().execute(async (tx) => {
        await tx
          .updateTable('settings')
          .set({ value: JSON.stringify(count) })
          .where('key', '=', key)
          .execute()
        await recordAudit(tx, deps.clock, ctx, {
          action: 'rig.change',
          actor: null,
          target: { type: 'setting', id: key },
          metadata: { count },
        })
      })
      count++
    }
  }
  const cpu = process.cpuUsage()
  await Promise.all(Array.from({ length: workers }, (_, w) => loop(w)))
  const used = process.cpuUsage(cpu)
  // The pool stays open until the parent has read its backends' CPU time (they end with it).
  const closing = new Promise((resolve) => process.once('message', resolve))
  process.send({ count, cpuUs: used.user + used.system })
  await closing
  await deps.close()
}

if (process.env.RIG_CHILD !== undefined) {
  await child(JSON.parse(process.env.RIG_CHILD))
  process.exit(0)
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workers: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
  },
})
const workers = Number(values.workers)
const seconds = Number(values.seconds)

async function prepare(dist, i) {
  const schema = `bench_rig_${Date.now().toString(36)}_${i}`
  await run(`create schema "${schema}"`)
  const url = new URL(POSTGRES_URL)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const { parseConfig } = await import(path.join(dist, 'config.js'))
  const { createDeps } = await import(path.join(dist, 'deps.js'))
  const { createLogger } = await import(path.join(dist, 'logger.js'))
  const { migrateToLatest } = await import(path.join(dist, 'db/migrate.js'))
  const deps = createDeps(parseConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' }), {
    logger: createLogger({ logLevel: 'silent' }),
  })
  await migrateToLatest(deps.database)
  const rows = []
  for (let k = 0; k < 2; k++)
    for (let w = 0; w < workers; w++)
      rows.push({ key: `rig-${k}-${w}`, value: '0', updated_at: new Date().toISOString() })
  await deps.db.insertInto('settings').values(rows).execute()
  await deps.close()
  return { dist, url: url.toString(), schema }
}

/** Runs `n` instances; `measure` runs once they all reported, before their pools close. */
function instances(side, n, measure) {
  const children = []
  return Promise.all(
    Array.from(
      { length: n },
      (_, instance) =>
        new Promise((resolve, reject) => {
          const env = { ...side, workers, seconds, instance }
          const p = fork(import.meta.filename, [], {
            env: { ...process.env, RIG_CHILD: JSON.stringify(env) },
          })
          children.push(p)
          p.on('message', resolve)
          p.on('error', reject)
          p.on('exit', (code) => code !== 0 && reject(new Error(`child exited ${code}`)))
        }),
    ),
  ).then((reports) => {
    const count = reports.reduce((a, r) => a + r.count, 0)
    const cpuUs = reports.reduce((a, r) => a + r.cpuUs, 0)
    const measuredThen = measure(count)
    for (const p of children) p.send('close')
    return {
      perSecond: Math.round(count / seconds),
      clientUs: Math.round(cpuUs / count),
      ...measuredThen,
    }
  })
}

/** A run of `n` instances, with the CPU time per transaction of the processes and of PostgreSQL. */
async function measured(side, n) {
  const before = postgresCpu(DATABASE)
  return instances(side, n, (count) => ({
    postgresUs: Math.round(postgresCpuSince(before, DATABASE).ns / 1000 / count),
  }))
}

const loadBefore = os.loadavg()
const sides = []
for (const [i, dist] of positionals.entries()) sides.push(await prepare(path.resolve(dist), i))
const results = sides.map(() => ({ one: [], two: [] }))
try {
  for (let r = 0; r < Number(values.rounds); r++)
    for (const [i, side] of sides.entries()) {
      results[i].one.push(await measured(side, 1))
      results[i].two.push(await measured(side, 2))
      console.error(
        `round ${r + 1} ${side.dist}: ${JSON.stringify(results[i].one.at(-1))} ` +
          `${JSON.stringify(results[i].two.at(-1))}`,
      )
    }
} finally {
  for (const side of sides) await run(`drop schema "${side.schema}" cascade`)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const summary = (runs) => {
  const of = (key) => runs.map((run) => run[key])
  return (
    `${of('perSecond').join(' ')} (median ${median(of('perSecond'))})/s, CPU µs per transaction ` +
    `client ${median(of('clientUs'))} + PostgreSQL ${median(of('postgresUs'))} (medians)`
  )
}
for (const [i, side] of sides.entries())
  console.log(
    `${side.dist}: one instance ${summary(results[i].one)}; two ${summary(results[i].two)}`,
  )
const l = (xs) => xs.map((x) => x.toFixed(2)).join(' ')
console.log(`load ${l(loadBefore)} → ${l(os.loadavg())} on ${os.cpus().length} CPUs`)
