#!/usr/bin/env node
/**
 * What limits audited writes on PostgreSQL (the audited-writes scenario of the scale bench, with
 * its costs counted instead of only its rate). Builds A/B in alternating rounds:
 *
 *   BENCH_DATABASE_URL=postgres://…/<a database of its own> \
 *     node bench/audit-limits.mjs [--before <checkout>] [--seconds <s>] [--rounds <r>] [--probe]
 *
 * For each build (as bench/audit-writes.mjs: its own schema, the small instance with 100 teams, two
 * servers) and round, concurrent PATCH of teams, 20 connections to one instance, then 20 to each of
 * two. Over each run it reads, per audited write: the CPU time of each server and of this process
 * (the load generator), of the PostgreSQL backends connected to the bench's database (their process
 * titles name it) and of the server's background processes (WAL writer, checkpointer, …); the WAL
 * writes and flushes (pg_stat_wal, the whole server); and, sampled every 20 ms, what the database's
 * backends were doing (pg_stat_activity: on a CPU, the wait event, or waiting for the service).
 * From them: the rate the CPU allows (2 cores ÷ CPU per write) beside the rate measured. Before the
 * rounds, what the idle servers and their backends use per second. --probe adds the hold of the
 * tree head (bench/audit-hold-probe.mjs). The load average is printed with the figures.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { cpuMs, postgresCpu, postgresCpuSince } from './proc.mjs'
import { PASSWORD, SMALL, seedScale } from './scale-seed.mjs'
import { api, auditedWrites, prepareDatabase, serviceEnv, start, stop } from './scale.mjs'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    probe: { type: 'boolean', default: false },
  },
})
const here = path.resolve(import.meta.dirname, '..')
const builds = { after: here, ...(values.before && { before: path.resolve(values.before) }) }
const seconds = Number(values.seconds)
const probe = path.join(here, 'bench/audit-hold-probe.mjs')
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const DATABASE = new URL(POSTGRES_URL).pathname.slice(1)

async function prepare(name, root) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `audit-limits-${name}-`))
  const db = await prepareDatabase('postgres', dataDir)
  const env = serviceEnv(db, dataDir)
  const seeded = await seedScale(root, env, { ...SMALL, teams: 100, auditEvents: 1 })
  const servers = []
  for (let i = 0; i < 2; i++) {
    const probeEnv = values.probe
      ? { NODE_OPTIONS: `--import=${probe}`, AUDIT_HOLD_OUT: path.join(dataDir, `hold-${i}.json`) }
      : {}
    servers.push(await start(path.join(root, 'dist/server.js'), { ...env, ...probeEnv }))
  }
  const login = await api(servers[0].base, 'POST', '/api/auth/login', {
    body: { email: 'admin@corp.example', password: PASSWORD },
  })
  return { name, db, dataDir, servers, ctx: { admin: login.token, teams: seeded.teams } }
}

function titleOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return null
  }
}

/** The server's own processes (not backends, whose titles name their client): WAL writer, … */
const background = (title) => !/\(\d+\)|\[local\]/.test(title)

async function walStats(client) {
  const { rows } = await client.query('select wal_write, wal_sync, wal_records from pg_stat_wal')
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]))
}

/** Samples what the bench database's backends do, every 10 ms, until stopped. */
function sampler(client) {
  const counts = new Map()
  let samples = 0
  let running = true
  const done = (async () => {
    while (running) {
      const { rows } = await client.query(
        `select case when state = 'active'
                 then coalesce(wait_event_type || ':' || wait_event, 'CPU') else state end as what,
                count(*)::int as n
           from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() group by 1`,
        [DATABASE],
      )
      samples++
      for (const { what, n } of rows) counts.set(what, (counts.get(what) ?? 0) + n)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return async () => {
    running = false
    await done
    return Object.fromEntries(
      [...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +(v / samples).toFixed(2)]),
    )
  }
}

/**
 * What the two idle servers and their backends use per second with no request (the checkpointers'
 * polls, timers): at a low rate of writes it is a visible part of the CPU per write.
 */
async function idle(side) {
  const servers = side.servers.map((s) => cpuMs(s.child.pid))
  const pgBefore = postgresCpu(DATABASE)
  await new Promise((r) => setTimeout(r, seconds * 1000))
  pgBefore.delete(ownBackend)
  const backends = postgresCpuSince(pgBefore, DATABASE).ns
  const own = postgresCpu(DATABASE).get(ownBackend)
  return {
    servers_ms_per_second: side.servers.map((s, i) => (cpuMs(s.child.pid) - servers[i]) / seconds),
    pg_backends_ms_per_second: +((backends - (own?.ns ?? 0)) / 1e6 / seconds).toFixed(1),
  }
}

/** One run from `n` instances, with its costs per audited write. */
async function measured(side, n, client, failures) {
  const servers = side.servers.slice(0, n)
  const before = {
    servers: servers.map((s) => cpuMs(s.child.pid)),
    self: process.cpuUsage(),
    pg: postgresCpu(),
    wal: await walStats(client),
  }
  const stopSampling = sampler(client)
  const run = await auditedWrites(
    servers.map((s) => s.base),
    side.ctx,
    seconds,
    failures,
  )
  const waits = await stopSampling()
  const writes = run.per_second * seconds
  const pgAll = postgresCpuSince(before.pg)
  let backendNs = 0
  let backgroundNs = 0
  for (const [pid, now] of postgresCpu()) {
    const then = before.pg.get(pid) ?? { ns: 0 }
    const title = titleOf(pid)
    if (title === null) continue // ended meanwhile
    if (pid === ownBackend) continue
    if (title.includes(` ${DATABASE} `)) backendNs += now.ns - then.ns
    else if (background(title)) backgroundNs += now.ns - then.ns
  }
  const self = process.cpuUsage(before.self)
  const wal = await walStats(client)
  const perWrite = (ms) => +((ms * 1000) / writes).toFixed(0)
  const cost = {
    servers_us: servers.map((s, i) => perWrite(cpuMs(s.child.pid) - before.servers[i])),
    load_generator_us: perWrite((self.user + self.system) / 1000),
    pg_backends_us: perWrite(backendNs / 1e6),
    pg_background_us: perWrite(backgroundNs / 1e6),
    pg_all_processes_us: perWrite(pgAll.ns / 1e6),
  }
  const total =
    cost.servers_us.reduce((a, b) => a + b, 0) +
    cost.load_generator_us +
    cost.pg_backends_us +
    cost.pg_background_us
  return {
    per_second: run.per_second,
    cpu_per_write_us: { ...cost, total_us: total },
    cpu_ceiling_per_second: Math.round((os.cpus().length * 1e6) / total),
    wal_per_second: {
      write: Math.round((wal.wal_write - before.wal.wal_write) / seconds),
      sync: Math.round((wal.wal_sync - before.wal.wal_sync) / seconds),
      records_per_write: +((wal.wal_records - before.wal.wal_records) / writes).toFixed(1),
    },
    active_backends: waits,
    load: os.loadavg()[0].toFixed(2),
  }
}

const failures = []
const load = [os.loadavg()]
const client = new pg.Client({ connectionString: POSTGRES_URL })
await client.connect()
/** The sampler's backend: its queries are the bench's, not the service's. */
const ownBackend = String((await client.query('select pg_backend_pid() as pid')).rows[0].pid)
const sides = []
for (const [name, root] of Object.entries(builds)) sides.push(await prepare(name, root))
const results = Object.fromEntries(sides.map((s) => [s.name, { one: [], two: [] }]))
try {
  for (const side of sides) console.log(`${side.name} idle: ${JSON.stringify(await idle(side))}`)
  for (let r = 0; r < Number(values.rounds); r++)
    for (const side of sides)
      for (const [key, n] of [
        ['one', 1],
        ['two', 2],
      ]) {
        const result = await measured(side, n, client, failures)
        results[side.name][key].push(result)
        console.log(`round ${r + 1} ${side.name} ${key}: ${JSON.stringify(result)}`)
      }
} finally {
  for (const side of sides) {
    for (const server of side.servers) await stop(server)
    if (values.probe)
      for (let i = 0; i < 2; i++) {
        const file = path.join(side.dataDir, `hold-${i}.json`)
        if (fs.existsSync(file))
          console.log(`${side.name} instance ${i} hold: ${fs.readFileSync(file, 'utf8')}`)
      }
    await side.db.drop()
    fs.rmSync(side.dataDir, { recursive: true, force: true })
  }
  await client.end()
}
load.push(os.loadavg())
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [name, r] of Object.entries(results))
  for (const key of ['one', 'two'])
    console.log(
      `${name} ${key}: writes/s ${r[key].map((x) => x.per_second).join(' ')} (median ` +
        `${median(r[key].map((x) => x.per_second))}); CPU µs per write ` +
        `${r[key].map((x) => x.cpu_per_write_us.total_us).join(' ')} (median ` +
        `${median(r[key].map((x) => x.cpu_per_write_us.total_us))})`,
    )
console.log(
  `load ${load[0].map((l) => l.toFixed(2)).join(' ')} → ` +
    `${load[1].map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs`,
)
if (failures.length > 0) {
  console.error(`FAILED:\n${failures.join('\n')}`)
  process.exit(1)
}
