#!/usr/bin/env node
/**
 * node bench/service-cpu.mjs [--dist <dir>]… [--engine sqlite|postgres] — the service's own CPU
 * time per authenticated read and go-link redirect, without sockets: the built app (dist/, or
 * several builds' dist/ to compare versions, measured in turn in the same time window) answers
 * requests through Fastify's inject, ten at a time, and the process's CPU time (user + system) is
 * divided by the requests. On a machine shared with other work the HTTP bench's figures follow the
 * load (every request's socket writes and wake-ups cost more the busier the machine is); this one
 * follows the code, so two builds can be compared while other work runs. On PostgreSQL the database
 * server's CPU per request is printed beside it (`database_cpu_us_per_request`: the on-CPU time of
 * every `postgres` process of this machine, from /proc/<pid>/schedstat, across the run; the server
 * should have nothing else to do then).
 *
 *   --requests <n>   per scenario and round (default 5000)
 *   --rounds <n>     alternating rounds (default 3)
 *   --database-only  count only the backends connected to the bench's database, not every
 *                    `postgres` process (for a server that other work uses meanwhile: give the
 *                    bench a database of its own in BENCH_DATABASE_URL)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { postgresCpu, postgresCpuSince } from './proc.mjs'

const { values } = parseArgs({
  options: {
    dist: { type: 'string', multiple: true },
    engine: { type: 'string', default: 'postgres' },
    requests: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    'database-only': { type: 'boolean', default: false },
  },
})
const dists = (values.dist ?? [path.resolve(import.meta.dirname, '..', 'dist')]).map((dir) =>
  path.resolve(dir),
)
const REQUESTS = Number(values.requests)
const ROUNDS = Number(values.rounds)
const IN_FLIGHT = 10
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const CPU_DATABASE = values['database-only'] ? new URL(POSTGRES_URL).pathname.slice(1) : null
const PASSWORD = 'benchmark passphrase 1'

/** One build's app on a database of its own, with a signed-in user and an sb_ token. */
async function instance(dist) {
  const load = (file) => import(pathToFileURL(path.join(dist, file)).href)
  const { parseConfig } = await load('config.js')
  const { createDeps } = await load('deps.js')
  const { migrateToLatest } = await load('db/migrate.js')
  const { buildApp } = await load('app.js')
  const { prepareNewUser, insertNewUser } = await load('modules/users/service.js')

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-service-cpu-'))
  let databaseUrl = `sqlite:${path.join(dataDir, 'bench.db')}`
  let schema = null
  if (values.engine === 'postgres') {
    schema = `service_cpu_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`
    const admin = new pg.Client({ connectionString: POSTGRES_URL })
    await admin.connect()
    await admin.query(`create schema "${schema}"`)
    await admin.end()
    const url = new URL(POSTGRES_URL)
    url.searchParams.set('options', `-c search_path=${schema}`)
    databaseUrl = url.toString()
  }
  const config = parseConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'error',
    RATE_LIMIT_GENERAL: '0',
  })
  const deps = createDeps(config)
  await migrateToLatest(deps.database)
  const app = await buildApp(deps)
  await app.ready()
  const close = async () => {
    await app.close()
    await deps.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
    if (schema !== null) {
      const admin = new pg.Client({ connectionString: POSTGRES_URL })
      await admin.connect()
      await admin.query(`drop schema "${schema}" cascade`)
      await admin.end()
    }
  }
  const row = await prepareNewUser(deps, {
    email: 'bench@example.com',
    name: 'Bench User',
    password: PASSWORD,
    isAdmin: false,
  })
  await insertNewUser(deps.db, row)
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: 'bench@example.com', password: PASSWORD },
  })
  const jwt = login.json().token
  const created = await app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { authorization: `Bearer ${jwt}` },
    payload: { name: 'bench', permissions: ['profile:read', 'links:read'] },
  })
  // The go-links of the HTTP bench (bench/run.mjs): path appending with a query, and a template.
  for (const payload of [
    { url: 'https://wiki.example/base?lang=en', slug: 'bench-wiki' },
    { url: 'https://code.example/repos/{1}/tree/{2|main}', slug: 'bench-code' },
  ]) {
    const link = await app.inject({
      method: 'POST',
      url: '/api/links',
      headers: { authorization: `Bearer ${jwt}` },
      payload,
    })
    if (link.statusCode !== 201) throw new Error(`POST /api/links: ${link.statusCode} ${link.body}`)
  }
  return { dist, app, close, jwt, sb: created.json().token }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const instances = []
try {
  for (const dist of dists) instances.push(await instance(dist))
  const scenarios = [
    ['GET /api/users/me (JWT)', '/api/users/me', 'jwt'],
    ['GET /api/users/me (sb_ token)', '/api/users/me', 'sb'],
    ['GET /api/auth/mfa/status (JWT)', '/api/auth/mfa/status', 'jwt'],
    ['GET /api/tags (sb_ token)', '/api/tags', 'sb'],
    ['GET /go/{slug}/{rest}?{query} → 302 (JWT)', '/go/bench-wiki/guides/setup?tab=2', 'jwt'],
    ['GET /go/{template slug}/{1}/{2} → 302 (JWT)', '/go/bench-code/api/dev', 'jwt'],
  ]
  const run = async ({ app, ...credentials }, url, credential) => {
    const token = credentials[credential]
    let next = 0
    const database = values.engine === 'postgres' ? postgresCpu(CPU_DATABASE) : null
    const cpu = process.cpuUsage()
    const started = performance.now()
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < REQUESTS) {
          const response = await app.inject({
            method: 'GET',
            url,
            headers: { authorization: `Bearer ${token}` },
          })
          // A go-link answers 302: that is its success.
          if (response.statusCode !== (url.startsWith('/go/') ? 302 : 200))
            throw new Error(`${url}: ${response.statusCode} ${response.body}`)
        }
      }),
    )
    const used = process.cpuUsage(cpu)
    return {
      cpu_us: (used.user + used.system) / REQUESTS,
      system_us: used.system / REQUESTS,
      database_us:
        database === null ? null : postgresCpuSince(database, CPU_DATABASE).ns / 1000 / REQUESTS,
      rps: REQUESTS / ((performance.now() - started) / 1000),
    }
  }
  // Warm-up: JIT, connections, prepared statements. Then each scenario on each build in turn.
  for (const build of instances)
    for (const [, url, credential] of scenarios) await run(build, url, credential)
  const results = instances.map(() => scenarios.map(() => []))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, url, credential]] of scenarios.entries()) {
      for (const [b, build] of instances.entries())
        results[b][i].push(await run(build, url, credential))
    }
  }
  const summary = (runs) => ({
    cpu_us_per_request: Math.round(median(runs.map((r) => r.cpu_us)) * 10) / 10,
    // Of which in the kernel: mostly the database connection's socket writes and reads.
    system_us_per_request: Math.round(median(runs.map((r) => r.system_us)) * 10) / 10,
    ...(values.engine === 'postgres' && {
      database_cpu_us_per_request: Math.round(median(runs.map((r) => r.database_us)) * 10) / 10,
    }),
    requests_per_second: Math.round(median(runs.map((r) => r.rps))),
  })
  console.log(
    JSON.stringify(
      {
        engine: values.engine,
        requests: REQUESTS,
        rounds: ROUNDS,
        builds: Object.fromEntries(
          instances.map((build, b) => [
            build.dist,
            Object.fromEntries(scenarios.map(([name], i) => [name, summary(results[b][i])])),
          ]),
        ),
      },
      null,
      2,
    ),
  )
} finally {
  for (const build of instances) await build.close()
}
