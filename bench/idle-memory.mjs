#!/usr/bin/env node
/**
 * The service's idle footprint, as bench/scale.mjs measures it, in interleaved rounds of one or
 * more builds: a small instance is seeded once per engine (scale-seed.mjs), then each build's
 * dist/server.js is started on it in turn and measured — milliseconds from spawn to the first 200
 * of /api/health, VmRSS 1 s after that, VmRSS 1 s after the start-up audit check (two sign-ins, a
 * SCIM credential and a team change first, as the scale bench does), VmHWM — and stopped. Prints
 * each start and the medians per build and engine as JSON.
 *
 *   node bench/idle-memory.mjs [--engine sqlite|postgres|both] [--rounds 5] [root ...]
 *
 * Each root is a checkout with a built dist/ (default: this one); the first seeds the databases.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { memoryMiB } from './proc.mjs'
import { api, prepareDatabase, serviceEnv, start, stop } from './scale.mjs'
import { PASSWORD, SMALL, seedScale } from './scale-seed.mjs'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string', default: 'both' },
    rounds: { type: 'string', default: '5' },
  },
})
const roots = positionals.length > 0 ? positionals.map((r) => path.resolve(r)) : [process.cwd()]
const engines = values.engine === 'both' ? ['sqlite', 'postgres'] : [values.engine]
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** What bench/scale.mjs does before it waits for the check: sign-ins, a credential, a write. */
async function firstRequests(base, seeded) {
  const login = (email) =>
    api(base, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })
  const admin = (await login('admin@corp.example')).token
  await login('me@corp.example')
  await api(base, 'POST', '/api/admin/scim/credentials', {
    token: admin,
    body: { name: `idle memory ${Date.now()}`, current_password: PASSWORD },
  })
  await api(base, 'PATCH', `/api/admin/teams/${seeded.teams[0]}`, {
    token: admin,
    body: { description: 'Seeded change' },
  })
  return admin
}

async function checkDone(base, admin, startedAt) {
  for (;;) {
    const view = await api(base, 'GET', '/api/admin/audit-log/integrity', { token: admin })
    if (view.checked_at !== null && Date.parse(view.checked_at) >= startedAt) return
    await sleep(100)
  }
}

async function oneStart(root, env, seeded) {
  const startedAt = Date.now()
  const spawned = performance.now()
  const server = await start(path.join(root, 'dist/server.js'), env)
  const ready_ms = Math.round(performance.now() - spawned)
  try {
    await sleep(1000)
    const idle = memoryMiB(server.child.pid, 'VmRSS')
    const admin = await firstRequests(server.base, seeded)
    await checkDone(server.base, admin, startedAt)
    await sleep(1000)
    const after = memoryMiB(server.child.pid, 'VmRSS')
    return { ready_ms, idle, after, peak: memoryMiB(server.child.pid, 'VmHWM') }
  } finally {
    await stop(server)
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const report = { load_before: os.loadavg(), runs: [], medians: {} }
for (const engine of engines) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-idle-${engine}-`))
  const db = await prepareDatabase(engine, dataDir)
  try {
    const env = serviceEnv(db, dataDir)
    const seeded = await seedScale(roots[0], env, SMALL)
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const root of roots) {
        const run = { engine, root, round, ...(await oneStart(root, env, seeded)) }
        console.error(JSON.stringify(run))
        report.runs.push(run)
      }
    }
  } finally {
    await db.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  for (const root of roots) {
    const mine = report.runs.filter((r) => r.engine === engine && r.root === root)
    report.medians[`${engine} ${root}`] = Object.fromEntries(
      ['ready_ms', 'idle', 'after', 'peak'].map((k) => [k, median(mine.map((r) => r[k]))]),
    )
  }
}
report.load_after = os.loadavg()
console.log(
  JSON.stringify(
    { load_before: report.load_before, medians: report.medians, load_after: report.load_after },
    null,
    1,
  ),
)
