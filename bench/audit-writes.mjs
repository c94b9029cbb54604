#!/usr/bin/env node
/**
 * Audited writes per second on PostgreSQL, builds A/B in alternating rounds (the audited-writes
 * scenario of `npm run bench -- --scale`, alone):
 *
 *   node bench/audit-writes.mjs [--before <checkout>] [--events <n>] [--seconds <s>] [--rounds <r>]
 *                               [--sequential <n>] [--probe]
 *
 * Each build (this checkout's dist/, and <checkout>'s when given, each with `npm run build:server`
 * done) gets its own schema on the database, seeded as the scale bench's small instance with 100
 * teams and <n> audit events (default 0), and two servers on it. A round runs, for each build,
 * concurrent PATCH of teams with 20 connections to one instance, then 20 to each of the two, for
 * <s> seconds each (default 5); then <n> sequential PATCHes give an audited write's p50/p99 alone
 * (--sequential, default 400). --probe preloads bench/audit-hold-probe.mjs into the servers and
 * prints where the tree head's hold went. The load average is printed with the figures.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { PASSWORD, SMALL, seedScale } from './scale-seed.mjs'
import { api, auditedWrites, measure, prepareDatabase, serviceEnv, start, stop } from './scale.mjs'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    events: { type: 'string', default: '0' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    sequential: { type: 'string', default: '400' },
    probe: { type: 'boolean', default: false },
  },
})
const here = path.resolve(import.meta.dirname, '..')
const builds = { after: here, ...(values.before && { before: path.resolve(values.before) }) }
const seconds = Number(values.seconds)
const probe = path.join(here, 'bench/audit-hold-probe.mjs')

async function prepare(name, root) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `audit-writes-${name}-`))
  const db = await prepareDatabase('postgres', dataDir)
  const env = serviceEnv(db, dataDir)
  const seeded = await seedScale(root, env, {
    ...SMALL,
    teams: 100,
    auditEvents: Math.max(1, Number(values.events)),
  })
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
  const ctx = { admin: login.token, teams: seeded.teams }
  return { name, db, dataDir, servers, ctx }
}

const failures = []
const load = [os.loadavg()]
const sides = []
for (const [name, root] of Object.entries(builds)) sides.push(await prepare(name, root))
const results = Object.fromEntries(sides.map((s) => [s.name, { one: [], two: [], seq: [] }]))
try {
  for (let r = 0; r < Number(values.rounds); r++)
    for (const side of sides) {
      const bases = side.servers.map((s) => s.base)
      const one = await auditedWrites(bases.slice(0, 1), side.ctx, seconds, failures)
      const two = await auditedWrites(bases, side.ctx, seconds, failures)
      results[side.name].one.push(one.per_second)
      results[side.name].two.push(two.per_second)
      if (Number(values.sequential) > 0) {
        const op = {
          name: 'PATCH team',
          request: (i) => ({
            method: 'PATCH',
            url: `/api/admin/teams/${side.ctx.teams[i % side.ctx.teams.length]}`,
            token: side.ctx.admin,
            body: { description: `Sequential ${i}` },
          }),
        }
        results[side.name].seq.push(
          await measure(op, bases[0], Number(values.sequential), failures),
        )
      }
      console.error(`round ${r + 1} ${side.name}: one ${one.per_second}/s, two ${two.per_second}/s`)
    }
} finally {
  for (const side of sides) {
    for (const server of side.servers) await stop(server)
    if (values.probe)
      for (let i = 0; i < 2; i++) {
        const file = path.join(side.dataDir, `hold-${i}.json`)
        if (fs.existsSync(file))
          console.log(`${side.name} instance ${i}: ${fs.readFileSync(file, 'utf8')}`)
      }
    await side.db.drop()
    fs.rmSync(side.dataDir, { recursive: true, force: true })
  }
}
load.push(os.loadavg())
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [name, r] of Object.entries(results))
  console.log(
    `${name}: one instance ${r.one.join(' ')} (median ${median(r.one)})/s, two instances ` +
      `${r.two.join(' ')} (median ${median(r.two)})/s; sequential p50/p99 ms ` +
      r.seq.map((m) => (m ? `${m.p50}/${m.p99}` : '-')).join(' '),
  )
console.log(
  `events seeded ${values.events}; load ${load[0].map((l) => l.toFixed(2)).join(' ')} → ` +
    `${load[1].map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs`,
)
if (failures.length > 0) {
  console.error(`FAILED:\n${failures.join('\n')}`)
  process.exit(1)
}
