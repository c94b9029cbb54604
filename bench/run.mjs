#!/usr/bin/env node
/**
 * npm run bench — starts the built service on SQLite (a temporary file) and on PostgreSQL (a
 * temporary schema, when a server answers), creates users, and drives it with autocannon:
 *
 *   - GET /api/users/me by access JWT and by sb_ token, GET /api/auth/mfa/status by access JWT and
 *     GET /api/tags by sb_ token (the MFA status is session-only);
 *   - the go-link redirect by access JWT, with click counting, path appending and query
 *     merging (GET /go/<slug>/<rest>?<query>) and a template (GET /go/<slug>/<1>/<2>): each 302 is
 *     a success; `go_ratio_to_users_me` compares it with GET /api/users/me by the same JWT, round
 *     by round (the goal: ≥ 0.8), the three measured interleaved in 2-s slices (SLICES), their
 *     latency percentiles exact over every answer (the goal: p99 ≤ 5 ms);
 *   - a mixed scenario: reads of /api/users/me (also by sb_ token), /api/auth/mfa/status and
 *     /api/tags, token creations and password logins (real argon2id cost) by a pool of users;
 *
 *   - sign-ins: POST /api/auth/login by the user pool, production argon2id settings, and what the
 *     hashing bound (PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE) costs them: alternating
 *     rounds against a second process on the same database with the bound lifted (64 at once);
 *
 * next to a bare Fastify route returning a constant object (the framework's ceiling). The service
 * runs as behind a reverse proxy on the same host (TRUST_PROXY=127.0.0.1), and the requests of the
 * sign-in and mixed scenarios come from 50 client addresses in turn (X-Forwarded-For, from the
 * documentation range 198.51.100.0/24): one address sending every sign-in would, rightly, be held
 * to its share of the hashing bound (503), which is the bound working and not the load measured.
 * The machine's throughput drifts, so the bare route and the single-route scenarios are measured in
 * alternating rounds, and each ratio is the median over the rounds of (scenario ÷ bare of the same
 * round). Beside throughput, the servers' own CPU time per request (from /proc) and its ratio to
 * the bare route's: on a machine shared with other work, throughput follows the load, CPU per
 * request hardly. Also per request, figures that count the batching rather than time: the service's
 * wake-ups and read/write system calls, and on PostgreSQL the database server's CPU time and the
 * times its processes were put on a CPU (/proc/<pid>/schedstat).
 * Prints one JSON document: requests/s, p50/p99 latency, ratios, sign-ins/s, and per engine the
 * time to ready (first 200 of /api/health after a restart on the existing database), the resident
 * memory when idle after that start, and the peak (VmHWM) over the whole run; its `summary` puts
 * the engines side by side (ratios, CPU per request, mixed, idle and peak memory), also written
 * as a short table on stderr.
 *
 *   --duration <s>      seconds per scenario and round (default 10)
 *   --rounds <n>        alternating rounds (default 3)
 *   --connections <n>   concurrent connections (default 10)
 *   --engine <e>        sqlite | postgres | both (default: both when PostgreSQL answers)
 *   --soak <s>          instead: the mixed scenario for <s> seconds on SQLite; fails (exit 1) when
 *                       memory grows by more than 20 % after warm-up or any request errors
 *   --only <words>      only the single-route scenarios whose name contains one of these
 *                       (comma-separated), e.g. `--only mfa,JWT`; no sign-in or mixed scenario
 *   --profile <dir>     run the measured service under `node --cpu-prof`, writing its profile into
 *                       <dir> when it stops (summarise with `node bench/profile-top.mjs <file>`)
 *   --scale             instead: the company-size benchmark (bench/scale.mjs and its options)
 *
 * The measured service inherits the environment, so its switches back from the fenced internals
 * are measured by setting them: `POSTGRES_HOT_READS=pool`, `SQLITE_READ_CACHE=off`,
 * `PROCESS_TUNING=off` (README, "Configuration").
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { cpuMs, memoryMiB, postgresCpu, postgresCpuSince, wakeupsAndSyscalls } from './proc.mjs'

// `--scale`: the company-size benchmark instead (bench/scale.mjs, its own options).
if (process.argv.includes('--scale')) {
  const { runScale } = await import('./scale.mjs')
  process.exit(await runScale(process.argv.slice(2).filter((arg) => arg !== '--scale')))
}

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    engine: { type: 'string' },
    soak: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const rounds = Number(values.rounds)
const only = values.only === undefined ? null : values.only.split(',')
const root = path.resolve(import.meta.dirname, '..')
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const PASSWORD = 'benchmark passphrase 1'
const POOL_SIZE = 20

// ---- processes ------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(url) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`${url} did not answer`)
}

async function start(script, env, readyPath = '/api/health', port = undefined, nodeOptions = []) {
  port ??= await freePort()
  const child = spawn(process.execPath, [...nodeOptions, script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const started = performance.now()
  await waitFor(`${base}${readyPath}`)
  return { child, base, port, readyMs: Math.round(performance.now() - started) }
}

function stop(process) {
  return new Promise((resolve) => {
    if (process.child.exitCode !== null) return resolve()
    process.child.once('exit', resolve)
    process.child.kill('SIGTERM')
  })
}

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

/** A database for one engine's run: a temporary SQLite file, or a temporary PostgreSQL schema. */
async function prepareDatabase(engine, dataDir) {
  if (engine === 'sqlite')
    return { url: `sqlite:${path.join(dataDir, 'bench.db')}`, drop: async () => undefined }
  const schema = `bench_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  await admin.query(`create schema "${schema}"`)
  await admin.end()
  const url = new URL(POSTGRES_URL)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL })
      await client.connect()
      await client.query(`drop schema if exists "${schema}" cascade`)
      await client.end()
    },
  }
}

// ---- data -----------------------------------------------------------------------------------

async function api(base, method, url, body, token) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(body && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body && { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : null
}

/**
 * An administrator, a pool of users with sessions, an sb_ token, and a few tags each. The service
 * runs behind a (pretend) proxy, so setup needs the setup code, which the CLI prints.
 */
async function seed(base, env) {
  const port = new URL(base).port
  const setupCode = execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'setup-code'], {
    env: { ...process.env, ...env, PORT: port },
    encoding: 'utf8',
  }).trim()
  const setup = await api(base, 'POST', '/api/auth/setup', {
    email: 'bench@example.com',
    name: 'Bench User',
    password: PASSWORD,
    setup_code: setupCode,
  })
  const jwt = setup.token
  const sb = (
    await api(
      base,
      'POST',
      '/api/tokens',
      { name: 'bench', permissions: ['profile:read', 'links:read'] },
      jwt,
    )
  ).token
  const users = []
  for (let i = 0; i < POOL_SIZE; i++) {
    const email = `user${i}@example.com`
    await api(
      base,
      'POST',
      '/api/admin/users',
      { email, name: `User ${i}`, password: PASSWORD },
      jwt,
    )
    const session = await api(base, 'POST', '/api/auth/login', { email, password: PASSWORD })
    users.push({ email, token: session.token })
  }
  let tags = true
  try {
    for (const [i, user] of users.entries()) {
      for (const name of ['work', 'reading', `topic-${i}`])
        await api(base, 'POST', '/api/tags', { name }, user.token)
    }
  } catch {
    tags = false // a build without tags: the mixed scenario leaves them out
  }
  // Go-links: one appending a path and merging the query, one template.
  await api(
    base,
    'POST',
    '/api/links',
    { url: 'https://wiki.example/base?lang=en', slug: 'bench-wiki' },
    jwt,
  )
  await api(
    base,
    'POST',
    '/api/links',
    { url: 'https://code.example/repos/{1}/tree/{2|main}', slug: 'bench-code' },
    jwt,
  )
  return { jwt, sb, users, tags }
}

// ---- scenarios ------------------------------------------------------------------------------

let addressTurn = 0
/** The next of 50 client addresses, as a reverse proxy would name them. */
const clientAddress = () => `198.51.100.${(addressTurn++ % 50) + 1}`

function summarise(name, result, extra = {}) {
  return {
    name,
    requests_per_second: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    ...(result.non2xx > 0 && {
      statuses: Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]),
      ),
    }),
    ...extra,
  }
}

/**
 * `onResponse(latencyMs)`, when given, is told each answer's latency (all statuses, as autocannon's
 * own figures).
 */
function run(options, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections, duration, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    )
    if (onResponse !== undefined)
      instance.on('response', (_client, _status, _bytes, latencyMs) => onResponse(latencyMs))
  })
}

/**
 * One scenario against one server process; adds the server's CPU time per request, and this
 * process's — autocannon's, the load generator's, which shares the machine with the server.
 */
async function measured(name, pid, options, postgres = false, latencies = undefined) {
  const before = cpuMs(pid)
  const counted = wakeupsAndSyscalls(pid)
  const database = postgres ? postgresCpu() : null
  const generator = process.cpuUsage()
  const result = await run(
    options,
    latencies === undefined ? undefined : (latencyMs) => latencies.push(latencyMs),
  )
  const used = process.cpuUsage(generator)
  const after = wakeupsAndSyscalls(pid)
  const databaseUsed = postgres ? postgresCpuSince(database) : null
  const totals = {
    requests: result.requests.total,
    seconds: result.duration,
    server_cpu_us: (cpuMs(pid) - before) * 1000,
    load_generator_cpu_us: used.user + used.system,
    server_wakeups: after.wakeups - counted.wakeups,
    server_syscalls: after.syscalls - counted.syscalls,
    ...(postgres && {
      database_cpu_us: databaseUsed.ns / 1000,
      database_wakeups: databaseUsed.slices,
    }),
  }
  return { ...summarise(name, result, perRequest(totals, postgres)), totals }
}

/**
 * A scenario's per-request figures from its totals (measured, or summed over interleaved slices).
 */
function perRequest(totals, postgres) {
  const per = (total, digits = 0) =>
    totals.requests > 0 ? Number((total / totals.requests).toFixed(digits)) : null
  return {
    server_cpu_us_per_request: per(totals.server_cpu_us),
    load_generator_cpu_us_per_request: per(totals.load_generator_cpu_us),
    server_wakeups_per_request: per(totals.server_wakeups, 2),
    server_syscalls_per_request: per(totals.server_syscalls, 2),
    ...(postgres && {
      database_cpu_us_per_request: per(totals.database_cpu_us),
      database_wakeups_per_request: per(totals.database_wakeups, 2),
    }),
  }
}

/** A go-link answers 302: that is its success, anything else is counted as before. */
function asRedirects(result) {
  const found = result.statuses?.['302'] ?? 0
  return { ...result, redirects: found, non_2xx: result.non_2xx - found }
}

async function single(name, pid, url, token, redirects = false, postgres = false) {
  const result = await measured(
    name,
    pid,
    { url, headers: { authorization: `Bearer ${token}` } },
    postgres,
  )
  delete result.totals
  return redirects ? asRedirects(result) : result
}

/**
 * Slices per scenario and round for the scenarios compared with each other (the go
 * redirects against GET /api/users/me). This machine's speed drifts by up to 2× within a minute
 * (5 s of /me five times in a row, 27 November 2026: 6.7k–11.4k requests/s, 87–153 µs of service
 * CPU per request), so a pair measured one after the other, 10–20 s apart, compares the machine's
 * moments as much as the routes.
 */
const SLICES = 5

/**
 * One round of scenarios to be compared, interleaved: each scenario's `duration` is cut into SLICES
 * slices, run in turn — /me, path, template; path, template, /me; … the order rotated each slice
 * so no scenario always follows another — and its slices are summed into one result (requests/s
 * over the slices' time, CPU and wake-ups per request over their requests, latency percentiles
 * over every answer: exact, in milliseconds to two decimals, where autocannon's whole-millisecond
 * figures are truncated).
 */
async function interleaved(list, pid, postgres) {
  const slices = list.map(() => [])
  const latencies = list.map(() => [])
  for (let slice = 0; slice < SLICES; slice++) {
    for (let k = 0; k < list.length; k++) {
      const i = (slice + k) % list.length
      const [name, url, token] = list[i]
      const options = {
        url,
        headers: { authorization: `Bearer ${token}` },
        duration: duration / SLICES,
      }
      slices[i].push(await measured(name, pid, options, postgres, latencies[i]))
    }
  }
  return list.map(([name, , , redirects], i) => {
    const merged = summed(name, slices[i], latencies[i], postgres)
    return redirects ? asRedirects(merged) : merged
  })
}

/** One result from a scenario's slices (interleaved). */
function summed(name, slices, latencies, postgres) {
  const totals = {}
  for (const slice of slices)
    for (const [key, value] of Object.entries(slice.totals))
      totals[key] = (totals[key] ?? 0) + value
  const sorted = Float64Array.from(latencies).sort()
  const at = (q) =>
    sorted.length === 0
      ? null
      : Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2))
  const statuses = {}
  for (const slice of slices)
    for (const [status, count] of Object.entries(slice.statuses ?? {}))
      statuses[status] = (statuses[status] ?? 0) + count
  const non2xx = slices.reduce((n, slice) => n + slice.non_2xx, 0)
  return {
    name,
    requests_per_second: Math.round(totals.requests / totals.seconds),
    latency_ms: { p50: at(0.5), p99: at(0.99) },
    requests: totals.requests,
    errors: slices.reduce((n, slice) => n + slice.errors, 0),
    non_2xx: non2xx,
    ...(non2xx > 0 && { statuses }),
    ...perRequest(totals, postgres),
    slices_rps: slices.map((slice) => slice.requests_per_second),
  }
}

/** Password sign-ins by the user pool (real argon2id cost); only successful ones count. */
async function logins(base, data, seconds = duration) {
  let next = 0
  let ok = 0
  const result = await run({
    url: base,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/auth/login',
        setupRequest: (request) => {
          const user = data.users[next++ % data.users.length]
          return {
            ...request,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': clientAddress() },
            body: JSON.stringify({ email: user.email, password: PASSWORD }),
          }
        },
        onResponse: (status) => {
          if (status === 200) ok++
        },
      },
    ],
  })
  return {
    ...summarise('POST /api/auth/login (argon2id, production settings)', result),
    sign_ins_per_second: Math.round(ok / seconds),
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * What the hashing bound costs sign-ins: alternating rounds against the service and against a
 * second process on the same database whose bound is lifted (64 hashes at once, a queue of 10,000),
 * each round half the scenario's duration. `cost` is the median of 1 − bounded ÷ unbounded.
 */
async function signInBound(service, data, env) {
  const unbounded = await start(path.join(root, 'dist/server.js'), {
    ...env,
    PASSWORD_HASH_CONCURRENCY: '64',
    PASSWORD_HASH_QUEUE: '10000',
  })
  const seconds = Math.max(2, Math.round(duration / 2))
  const bounded = []
  const lifted = []
  try {
    for (let round = 0; round < rounds; round++) {
      bounded.push((await logins(service.base, data, seconds)).sign_ins_per_second)
      lifted.push((await logins(unbounded.base, data, seconds)).sign_ins_per_second)
    }
  } finally {
    await stop(unbounded)
  }
  return {
    bounded_sign_ins_per_second: bounded,
    unbounded_sign_ins_per_second: lifted,
    cost: Number((1 - median(bounded.map((n, i) => n / lifted[i]))).toFixed(3)),
  }
}

/**
 * The mixed scenario: each connection cycles through 20 requests — 6 profile reads, 5 MFA status
 * reads, 6 tag lists (when available), 2 token creations and 1 password login — spread over the
 * user pool. Token creation is limited to 10 per 15 minutes per user by contract, so its 429s are
 * the limit working and are counted apart; everything else must succeed.
 */
async function mixed(base, data, seconds = duration, onTick) {
  const outcomes = {}
  const count = (kind, status) => {
    outcomes[kind] ??= {}
    outcomes[kind][status] = (outcomes[kind][status] ?? 0) + 1
  }
  let next = 0
  const pick = () => data.users[next++ % data.users.length]
  const as = (kind, method, url, token, body) => ({
    method,
    path: url,
    setupRequest: (request) => {
      const user = pick()
      const credential = token === 'user' ? user.token : token
      return {
        ...request,
        headers: {
          'x-forwarded-for': clientAddress(),
          ...(credential && { authorization: `Bearer ${credential}` }),
          ...(body && { 'content-type': 'application/json' }),
        },
        ...(body && { body: JSON.stringify(typeof body === 'function' ? body(user) : body) }),
      }
    },
    onResponse: (status) => count(kind, status),
  })
  const read = (i) =>
    [
      as('me', 'GET', '/api/users/me', 'user'),
      i % 2
        ? as('me', 'GET', '/api/users/me', data.sb)
        : as('mfa_status', 'GET', '/api/auth/mfa/status', 'user'),
      data.tags
        ? as('tags', 'GET', '/api/tags', 'user')
        : as('me', 'GET', '/api/users/me', data.sb),
    ][i % 3]
  const sequence = [
    ...Array.from({ length: 17 }, (_, i) => read(i)),
    as('token_create', 'POST', '/api/tokens', 'user', {
      name: 'bench token',
      permissions: ['links:read'],
    }),
    as('token_create', 'POST', '/api/tokens', 'user', {
      name: 'bench token',
      permissions: ['links:read'],
    }),
    as('login', 'POST', '/api/auth/login', null, (user) => ({
      email: user.email,
      password: PASSWORD,
    })),
  ]
  const instance = autocannon(
    { url: base, connections, duration: seconds, requests: sequence },
    () => undefined,
  )
  const timer = onTick ? setInterval(onTick, 1000) : null
  const result = await new Promise((resolve, reject) => {
    instance.once('done', resolve)
    instance.once('error', reject)
  })
  if (timer) clearInterval(timer)
  const unexpected = Object.entries(outcomes).flatMap(([kind, statuses]) =>
    Object.entries(statuses)
      .filter(
        ([status]) => !(status.startsWith('2') || (kind === 'token_create' && status === '429')),
      )
      .map(([status, n]) => `${kind} ${status} ×${n}`),
  )
  return {
    ...summarise('mixed: reads, token creations, logins', result, { outcomes }),
    errors: result.errors + result.timeouts + unexpected.length,
    unexpected,
  }
}

// ---- main -----------------------------------------------------------------------------------

const settings = {
  log_level: 'warn',
  // The general limit (1000 requests per minute per credential) would stop a load test in a second.
  rate_limit_general: 0,
  // As behind a reverse proxy on the same host; the pool's users come from addresses of their own.
  trust_proxy: '127.0.0.1',
  password_hash: 'argon2id m=19456 t=2 (production defaults)',
  connections,
  duration_seconds: duration,
  node: process.version,
  cpus: os.cpus().length,
}

async function engineRun(engine, work) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'))
  const database = await prepareDatabase(engine, dataDir)
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    LOG_LEVEL: settings.log_level,
    RATE_LIMIT_GENERAL: String(settings.rate_limit_general),
    TRUST_PROXY: settings.trust_proxy,
  }
  // The first start migrates a new database and is seeded; the measured start is the second one,
  // on the existing database, as after a deployment.
  const first = await start(path.join(root, 'dist/server.js'), env)
  let service = first
  try {
    const data = await seed(first.base, env)
    await stop(first)
    // Same port: the default PUBLIC_URL, the access tokens' issuer, follows it.
    const profile =
      values.profile === undefined
        ? []
        : [
            '--cpu-prof',
            `--cpu-prof-dir=${path.resolve(values.profile)}`,
            `--cpu-prof-name=${engine}-${Date.now()}.cpuprofile`,
          ]
    service = await start(
      path.join(root, 'dist/server.js'),
      env,
      '/api/health',
      first.port,
      profile,
    )
    await new Promise((r) => setTimeout(r, 2000))
    const footprint = {
      ready_ms: service.readyMs,
      idle_rss_mib: memoryMiB(service.child.pid, 'VmRSS'),
    }
    return { ...footprint, ...(await work(service, data, env)) }
  } finally {
    await stop(service)
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

async function benchmark() {
  const engines =
    values.engine === 'both' || values.engine === undefined
      ? ['sqlite', ...((await postgresAnswers()) ? ['postgres'] : [])]
      : [values.engine]
  const bare = await start(path.join(root, 'bench/bare-server.mjs'), {}, '/')
  const report = { settings: { ...settings, rounds, engines }, engines: {} }
  const checked = []
  try {
    for (const engine of engines) {
      report.engines[engine] = await engineRun(engine, async (service, data, env) => {
        // The go redirects and GET /api/users/me, which they are compared with round by round, are
        // measured interleaved (SLICES): on a machine whose speed drifts within a round, seconds
        // apart.
        const scenarios = [
          ['GET /api/users/me (Bearer JWT)', '/api/users/me', data.jwt],
          [
            'GET /go/{slug}/{rest}?{query} → 302 (Bearer JWT)',
            '/go/bench-wiki/guides/setup?tab=2',
            data.jwt,
            true,
          ],
          [
            'GET /go/{template slug}/{1}/{2} → 302 (Bearer JWT)',
            '/go/bench-code/api/dev',
            data.jwt,
            true,
          ],
          ['GET /api/users/me (Bearer sb_ token)', '/api/users/me', data.sb],
          ['GET /api/auth/mfa/status (Bearer JWT)', '/api/auth/mfa/status', data.jwt],
          ['GET /api/tags (Bearer sb_ token)', '/api/tags', data.sb],
        ]
        // Alternating rounds: bare, then each scenario; ratios against the bare of the same round.
        if (only !== null)
          scenarios.splice(
            0,
            scenarios.length,
            ...scenarios.filter(([name]) => only.some((word) => name.includes(word))),
          )
        const bareRounds = []
        const byScenario = scenarios.map(() => [])
        for (let round = 0; round < rounds; round++) {
          const ceiling = await measured('bare fastify: constant object', bare.child.pid, {
            url: `${bare.base}/`,
          })
          delete ceiling.totals
          bareRounds.push(ceiling)
          const postgres = engine === 'postgres'
          const paired = scenarios.flatMap((scenario, i) => (i === 0 || scenario[3] ? [i] : []))
          if (paired.length > 1 && paired[0] === 0) {
            const answers = await interleaved(
              paired.map((i) => [
                scenarios[i][0],
                `${service.base}${scenarios[i][1]}`,
                scenarios[i][2],
                scenarios[i][3],
              ]),
              service.child.pid,
              postgres,
            )
            paired.forEach((i, k) => byScenario[i].push(answers[k]))
          }
          for (const [i, [name, url, token, redirects]] of scenarios.entries()) {
            if (byScenario[i].length > round) continue
            byScenario[i].push(
              await single(
                name,
                service.child.pid,
                `${service.base}${url}`,
                token,
                redirects,
                postgres,
              ),
            )
          }
        }
        checked.push(...bareRounds, ...byScenario.flat())
        const results = scenarios.map(([name], i) => {
          const runs = byScenario[i]
          return {
            name,
            requests_per_second: median(runs.map((r) => r.requests_per_second)),
            ratio_to_bare: Number(
              median(
                runs.map(
                  (r, round) => r.requests_per_second / bareRounds[round].requests_per_second,
                ),
              ).toFixed(2),
            ),
            rounds_rps: runs.map((r) => r.requests_per_second),
            // The same comparison by the servers' own CPU time per request (bare ÷ scenario,
            // median).
            server_cpu_us_per_request: median(runs.map((r) => r.server_cpu_us_per_request)),
            load_generator_cpu_us_per_request: median(
              runs.map((r) => r.load_generator_cpu_us_per_request),
            ),
            server_wakeups_per_request: median(runs.map((r) => r.server_wakeups_per_request)),
            server_syscalls_per_request: median(runs.map((r) => r.server_syscalls_per_request)),
            ...(engine === 'postgres' && {
              database_cpu_us_per_request: median(runs.map((r) => r.database_cpu_us_per_request)),
              database_wakeups_per_request: median(runs.map((r) => r.database_wakeups_per_request)),
            }),
            cpu_ratio_to_bare: Number(
              median(
                runs.map(
                  (r, round) =>
                    bareRounds[round].server_cpu_us_per_request / r.server_cpu_us_per_request,
                ),
              ).toFixed(2),
            ),
            latency_ms: runs[Math.floor(runs.length / 2)].latency_ms,
            ...(scenarios[i][3] && {
              // The redirect against GET /api/users/me by the same JWT (scenario 0), round by
              // round.
              go_ratio_to_users_me: Number(
                median(
                  runs.map(
                    (r, round) => r.requests_per_second / byScenario[0][round].requests_per_second,
                  ),
                ).toFixed(2),
              ),
              go_cpu_ratio_to_users_me: Number(
                median(
                  runs.map(
                    (r, round) =>
                      byScenario[0][round].server_cpu_us_per_request / r.server_cpu_us_per_request,
                  ),
                ).toFixed(2),
              ),
            }),
            errors: runs.reduce((n, r) => n + r.errors, 0),
            non_2xx: runs.reduce((n, r) => n + r.non_2xx, 0),
            ...(runs.some((r) => r.statuses) && { statuses: runs.map((r) => r.statuses ?? null) }),
            ...(runs.some((r) => r.slices_rps) && {
              rounds_slices_rps: runs.map((r) => r.slices_rps ?? null),
            }),
          }
        })
        if (only !== null)
          return { bare_rps_rounds: bareRounds.map((r) => r.requests_per_second), results }
        const signIns = await logins(service.base, data)
        const bound = await signInBound(service, data, env)
        const mix = await mixed(service.base, data)
        checked.push(mix)
        return {
          bare_rps_rounds: bareRounds.map((r) => r.requests_per_second),
          bare_cpu_us_per_request_rounds: bareRounds.map((r) => r.server_cpu_us_per_request),
          results,
          sign_ins_per_second: signIns.sign_ins_per_second,
          sign_in: signIns,
          sign_in_bound: bound,
          mixed: mix,
          peak_rss_mib: memoryMiB(service.child.pid, 'VmHWM'),
        }
      })
    }
  } finally {
    await stop(bare)
  }
  report.summary = summary(report.engines)
  console.log(JSON.stringify(report, null, 2))
  process.stderr.write(summaryTable(report.summary))
  const failed = checked.some((r) => r.errors > 0 || (r.non_2xx > 0 && !r.outcomes))
  process.exitCode = failed ? 1 : 0
}

/**
 * The engines side by side: per scenario the ratio to the bare route by throughput and
 * the service CPU per request, the mixed scenario (and PostgreSQL's as a share of SQLite's), and
 * the idle and peak memory.
 */
function summary(engines) {
  const names = [
    ...new Set(Object.values(engines).flatMap((run) => run.results.map((r) => r.name))),
  ]
  const per = (pick) =>
    Object.fromEntries(Object.entries(engines).map(([engine, run]) => [engine, pick(run)]))
  const mixedRps = per((run) => run.mixed?.requests_per_second ?? null)
  return {
    scenarios: Object.fromEntries(
      names.map((name) => [
        name,
        per((run) => {
          const result = run.results.find((r) => r.name === name)
          return (
            result && {
              ratio_to_bare: result.ratio_to_bare,
              server_cpu_us_per_request: result.server_cpu_us_per_request,
              p99_ms: result.latency_ms.p99,
              ...(result.database_cpu_us_per_request !== undefined && {
                database_cpu_us_per_request: result.database_cpu_us_per_request,
                database_wakeups_per_request: result.database_wakeups_per_request,
              }),
              ...(result.go_ratio_to_users_me !== undefined && {
                go_ratio_to_users_me: result.go_ratio_to_users_me,
              }),
            }
          )
        }),
      ]),
    ),
    mixed_rps: mixedRps,
    ...(mixedRps.sqlite &&
      mixedRps.postgres && {
        mixed_postgres_to_sqlite: Number((mixedRps.postgres / mixedRps.sqlite).toFixed(2)),
      }),
    idle_rss_mib: per((run) => run.idle_rss_mib),
    peak_rss_mib: per((run) => run.peak_rss_mib ?? null),
  }
}

/** The summary as a few lines of text (on stderr: stdout stays one JSON document). */
function summaryTable({
  scenarios,
  mixed_rps,
  mixed_postgres_to_sqlite,
  idle_rss_mib,
  peak_rss_mib,
}) {
  const engines = Object.keys(idle_rss_mib)
  const cell = (value) => String(value ?? '–').padStart(16)
  const width = Math.max(44, ...Object.keys(scenarios).map((name) => name.length + 2))
  const lines = [`${'ratio to bare (CPU µs/request)'.padEnd(width)}${engines.map(cell).join('')}`]
  for (const [name, byEngine] of Object.entries(scenarios)) {
    lines.push(
      `${name.padEnd(width)}${engines.map((e) => cell(byEngine[e] && `${byEngine[e].ratio_to_bare} (${byEngine[e].server_cpu_us_per_request})`)).join('')}`,
    )
  }
  // The goal, per go scenario: ≥ 0.8 of GET /api/users/me (JWT) in the same round, p99 ≤ 5 ms.
  for (const [name, byEngine] of Object.entries(scenarios)) {
    if (!engines.some((e) => byEngine[e]?.go_ratio_to_users_me !== undefined)) continue
    const label = `${name.replace(/ → 302.*$/, '')}: ÷ /me, p99 ms`
    lines.push(
      `${label.padEnd(width)}${engines.map((e) => cell(byEngine[e] && `${byEngine[e].go_ratio_to_users_me}, ${byEngine[e].p99_ms}`)).join('')}`,
    )
  }
  const ratio =
    mixed_postgres_to_sqlite === undefined ? '' : `   postgres ÷ sqlite ${mixed_postgres_to_sqlite}`
  lines.push(
    `${'mixed, requests/s'.padEnd(width)}${engines.map((e) => cell(mixed_rps[e])).join('')}${ratio}`,
  )
  lines.push(
    `${'idle memory after start, MiB'.padEnd(width)}${engines.map((e) => cell(idle_rss_mib[e])).join('')}`,
  )
  lines.push(
    `${'peak memory, MiB'.padEnd(width)}${engines.map((e) => cell(peak_rss_mib[e])).join('')}`,
  )
  return `\n${lines.join('\n')}\n`
}

/** The mixed scenario for a long time; memory must settle after warm-up and nothing may fail. */
async function soak(seconds) {
  const warmUp = Math.max(10, Math.round(seconds * 0.2))
  await engineRun('sqlite', async (service, data) => {
    const samples = []
    const result = await mixed(service.base, data, seconds, () =>
      samples.push(memoryMiB(service.child.pid, 'VmRSS')),
    )

    const baseline = median(samples.slice(Math.max(0, warmUp - 3), warmUp))
    const final = median(samples.slice(-3))
    const growth = Number(((final - baseline) / baseline).toFixed(3))
    const verdict = {
      ok: growth <= 0.2 && result.errors === 0,
      warm_up_seconds: warmUp,
      rss_mib: { baseline, final, peak: Math.max(...samples) },
      growth,
    }
    console.log(
      JSON.stringify(
        { settings: { ...settings, soak_seconds: seconds }, result, memory: verdict },
        null,
        2,
      ),
    )
    process.exitCode = verdict.ok ? 0 : 1
  })
}

if (values.soak !== undefined) await soak(Number(values.soak))
else await benchmark()
