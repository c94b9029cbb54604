/**
 * `npm run bench -- --scale`: what the daily operations cost as a company's data grows. On each
 * engine a small instance (60 people, 100 links, 50 audit events) and a large one (5,000 people,
 * 100 teams, 100,000 links — the measured person owns 20,000, an organization of 50 they belong to
 * 20,000 — and 200,000 audit events), seeded through the service's own code (scale-seed.mjs), then
 * served by the built service (dist/server.js) — once the audit integrity check it runs on start
 * has finished — and measured with sequential requests over one keep-alive connection: p50 and p99
 * (exact, over every answer) of each operation, small and large, and whether large stays within
 * the goal (p50 ≤ 1.5 × small + 0.5 ms, p99 ≤ 2 × small + 2 ms). Each operation is measured on the
 * small and the large instance side by side, slice by slice, both up at once, so that the ratio is
 * the data's and not the machine's speed moving between two stretches of the run. The hot
 * operations (`/me`, the MFA status, the go redirect) are warmed up longer and measured in one set
 * of slices on both instances.
 *
 * Beside them, on PostgreSQL: three baselines (bench/bare-server.mjs: a bare Fastify route, the
 * same route doing /me's one indexed read through a plain `pg` Pool, and the same with the
 * redirect's read), measured in the same slices as the hot operations, with every scenario's ratio
 * to the first two and each redirect's to the third (baseline p50 ÷ scenario p50); on the large
 * instance, in those slices too, the hot operations of a second process with the plain pool reader
 * (POSTGRES_HOT_READS=pool); audited writes per second
 * (concurrent PATCH of teams, 20 connections per instance) from one and from two instances on the
 * one database. On SQLite: a timed backup and restore of the large database (the CLI's commands).
 * On both: `audit verify --database` of the large log, timed, and each server's idle resident
 * memory after start and its peak (VmHWM).
 *
 *   --scale-factor <f>  multiplies the large instance's counts (default 1; 0.1 for development)
 *   --engine <e>        sqlite | postgres | both (default: both when PostgreSQL answers)
 *   --requests <n>      measured requests per operation and instance (default 400)
 *   --write-seconds <s> seconds of each audited-writes run (default 10)
 *   --json <file>       also writes the results as JSON
 *   --only <a,b>        measures only the operations whose names contain one of these texts, and
 *                       none of the extras (pool reader, writes/s, backup, verify); the baselines
 *                       stay, beside any hot operation chosen
 *
 * Exits non-zero when a request answers other than 2xx/3xx (or as the operation expects) or a step
 * fails; a ratio outside the goal is reported, not a failure (the figures depend on the machine).
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { memoryMiB } from './proc.mjs'
import { DEEP_PAGE, PASSWORD, seedScale, sizes, SMALL, WORD } from './scale-seed.mjs'

const root = path.resolve(import.meta.dirname, '..')
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const WARM_UP = 30
// The hot operations (authentication, the redirect) and the baselines they are compared with are
// warmed up longer: without V8's mid tier, Maglev, which the service runs without
// (docs/decisions/0003-v8-and-malloc-settings.md), a request's functions reach the optimising tier
// over its first thousand or so requests (`--trace-opt`: 73 optimised compilations done when `/me`
// is first asked after start, 149 after 300 requests, 263 after 1,000, 365 after 1,900), so 30
// requests after start measure the compiler as much as the code; the bare route, with Maglev and
// little code, warms sooner.
const HOT_WARM_UP = 1000
const SLICES = 20

// ---- processes ------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

export async function start(script, env, readyPath = '/api/health') {
  const port = await freePort()
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode})`)
    try {
      if ((await fetch(`${base}${readyPath}`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${script} did not answer`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return { child, base, port }
}

export function stop(server) {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve()
    server.child.once('exit', resolve)
    server.child.kill('SIGTERM')
  })
}

export async function prepareDatabase(engine, dataDir) {
  if (engine === 'sqlite')
    return { url: `sqlite:${path.join(dataDir, 'scale.db')}`, drop: async () => undefined }
  const schema = `bench_scale_${Date.now().toString(36)}`
  const run = async (statement) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL })
    await client.connect()
    await client.query(statement)
    await client.end()
  }
  await run(`create schema "${schema}"`)
  const url = new URL(POSTGRES_URL)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return { url: url.toString(), drop: () => run(`drop schema if exists "${schema}" cascade`) }
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

// ---- requests -------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const ANSWER_TIMEOUT_MS = 60_000

/** One request over the keep-alive connection: its status, body and milliseconds. */
function request(base, method, url, { token, body, type = 'application/json' } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = http.request(
      `${base}${url}`,
      {
        method,
        agent,
        headers: {
          ...(token && { authorization: `Bearer ${token}` }),
          ...(payload && { 'content-type': type, 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        )
      },
    )
    req.on('error', reject)
    // A request the service never answers fails the run, naming itself, instead of stalling it.
    req.setTimeout(ANSWER_TIMEOUT_MS, () =>
      req.destroy(new Error(`${method} ${url}: no answer within ${ANSWER_TIMEOUT_MS / 1000} s`)),
    )
    req.end(payload)
  })
}

export async function api(base, method, url, options) {
  const response = await request(base, method, url, options)
  if (response.status < 200 || response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${response.text.slice(0, 300)}`)
  return response.text ? JSON.parse(response.text) : null
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]
const round = (ms) => Math.round(ms * 100) / 100
// Percentiles to the microsecond: a hot read's p50 is 0.1–0.3 ms, where a hundredth of a
// millisecond would move the ratios to the baselines by 3–8 %.
const toMicroseconds = (ms) => Math.round(ms * 1000) / 1000

/** What is wrong with an answer (its status, or what the operation's `check` says), or null. */
function answerError(op, response) {
  return response.status < 200 || response.status >= 400
    ? `status ${response.status}: ${response.text.slice(0, 200)}`
    : (op.check?.(response) ?? null)
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    p50: toMicroseconds(percentile(sorted, 0.5)),
    p99: toMicroseconds(percentile(sorted, 0.99)),
  }
}

/**
 * `count` sequential requests of one operation after a warm-up: p50 and p99 in ms. Every answer is
 * checked (`check` returns an error text or null); a failure is recorded and ends the operation.
 */
export async function measure(op, base, count, failures) {
  const samples = []
  for (let i = 0; i < WARM_UP + count; i++) {
    const { method = 'GET', url, token, body, type } = op.request(i)
    const response = await request(base, method, url, { token, body, type })
    const error = answerError(op, response)
    if (error !== null) {
      failures.push(`${op.name} (${base}): ${error}`)
      return null
    }
    if (i >= WARM_UP) samples.push(response.ms)
  }
  return summary(samples)
}

/**
 * Operations measured side by side, each against its own server (`op.base`): `warmUp` requests
 * of each, then each one's `count` requests cut into SLICES slices run in turn, the order rotated
 * slice by slice, so that every operation is measured in the same moments of the machine — a ratio
 * of two of them compares code, not two stretches of another process's load. p50 and p99 over
 * every answer, in `ops`' order; null for an operation that failed (recorded, as measure()).
 */
export async function measureInterleaved(ops, count, failures, warmUp = HOT_WARM_UP) {
  const samples = ops.map(() => [])
  const failed = new Set()
  const run = async (index, n, keep) => {
    const op = ops[index]
    for (let i = 0; i < n && !failed.has(index); i++) {
      const { method = 'GET', url, token, body, type } = op.request(i)
      const response = await request(op.base, method, url, { token, body, type })
      const error = answerError(op, response)
      if (error !== null) {
        failures.push(`${op.name} (${op.base}): ${error}`)
        failed.add(index)
      } else if (keep) samples[index].push(response.ms)
    }
  }
  for (const index of ops.keys()) await run(index, warmUp, false)
  const perSlice = Math.ceil(count / SLICES)
  for (let slice = 0; slice < SLICES; slice++) {
    for (let k = 0; k < ops.length; k++) await run((slice + k) % ops.length, perSlice, true)
  }
  return ops.map((_op, index) => (failed.has(index) ? null : summary(samples[index])))
}

const jwtClaims = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())

// ---- one instance ---------------------------------------------------------------------------

/** The operations measured, given an instance's tokens and ids. */
function operations(ctx) {
  const scimFilter = (filter) => `/scim/v2/Users?filter=${encodeURIComponent(filter)}&count=100`
  const expectItems = (min) => (response) => {
    const body = JSON.parse(response.text)
    const n = (body.items ?? body.Resources ?? []).length
    return n >= min ? null : `${n} items, expected at least ${min}`
  }
  const redirect = (response) =>
    response.status === 302 ? null : `status ${response.status}, expected 302`
  return [
    {
      name: 'GET /api/users/me',
      hot: true,
      request: () => ({ url: '/api/users/me', token: ctx.person }),
    },
    {
      name: 'GET /api/auth/mfa/status',
      hot: true,
      request: () => ({ url: '/api/auth/mfa/status', token: ctx.person }),
    },
    {
      name: 'go redirect (path)',
      hot: true,
      request: () => ({ url: '/go/bench-wiki/guides/setup?tab=2', token: ctx.person }),
      check: redirect,
    },
    {
      name: 'go redirect (template)',
      hot: true,
      request: () => ({ url: '/go/bench-code/api/dev', token: ctx.person }),
      check: redirect,
    },
    {
      name: 'GET /api/links?limit=50',
      request: () => ({ url: '/api/links?limit=50', token: ctx.person }),
      check: expectItems(50),
    },
    {
      name: 'GET /api/links deep page (cursor)',
      request: () => ({
        url: `/api/links?limit=${DEEP_PAGE}&cursor=${ctx.deepCursor}`,
        token: ctx.person,
      }),
      check: expectItems(DEEP_PAGE),
    },
    {
      name: `GET /api/links?q=${WORD.toLowerCase()}`,
      request: () => ({ url: `/api/links?q=${WORD.toLowerCase()}&limit=50`, token: ctx.person }),
      check: expectItems(1),
    },
    {
      // The same search with a page of one: on the small instance the word is in one visible
      // title, on the large one in some hundred, so the page above answers 1 link there and 50
      // here. With one a page the answers are the same size, and the difference is the search's.
      name: `GET /api/links?q=${WORD.toLowerCase()}&limit=1`,
      request: () => ({ url: `/api/links?q=${WORD.toLowerCase()}&limit=1`, token: ctx.person }),
      check: expectItems(1),
    },
    // A word in nearly every title ("Page <n> of the handbook"): tens of thousands of matches on
    // the large instance, of which a page shows the newest. The console's Links page asks for the
    // pinned links and the others apart, and for the count; its palette for six of each.
    ...[
      ['q=handbook', 50],
      ['q=handbook&pinned=false', 50],
      ['q=handbook&pinned=true', 0],
      ['q=ha', 50],
      ['q=qu', 1],
      ['q=qu&pinned=false', 1],
      // The console's "most clicked first": by each link's clicks of the last 30 days.
      ['sort=clicks_30d', 50],
      ['sort=clicks_30d&q=handbook&pinned=false', 50],
    ].map(([query, items]) => ({
      name: `GET /api/links?${query}`,
      request: () => ({ url: `/api/links?${query}&limit=50`, token: ctx.person }),
      check: expectItems(items),
    })),
    {
      // The tags the console's Links page loads (it asks for 200), each with its count of links:
      // a page of 20 — all of the small instance's, each on 2 links; on the large one each of the
      // measured person's tags is on 100.
      name: 'GET /api/tags?limit=20',
      request: () => ({ url: '/api/tags?limit=20', token: ctx.person }),
      check: expectItems(20),
    },
    ...['', '?q=handbook', '?q=ha', '?q=qu'].map((query) => ({
      name: `GET /api/links/count${query}`,
      request: () => ({ url: `/api/links/count${query}`, token: ctx.person }),
    })),
    {
      name: 'GET /api/admin/users?q=<prefix>',
      request: () => ({ url: '/api/admin/users?q=person-0004&limit=50', token: ctx.admin }),
      check: expectItems(1),
    },
    {
      name: 'SCIM userName eq',
      request: () => ({
        url: scimFilter('userName eq "person-00042@corp.example"'),
        token: ctx.scim,
      }),
      check: expectItems(1),
    },
    {
      name: 'SCIM name.familyName eq',
      request: () => ({ url: scimFilter('name.familyName eq "family42"'), token: ctx.scim }),
      check: expectItems(1),
    },
    {
      name: 'GET /api/admin/audit-log?limit=50',
      request: () => ({ url: '/api/admin/audit-log?limit=50', token: ctx.admin }),
      check: expectItems(50),
    },
    {
      name: 'GET /api/admin/audit-log filtered',
      request: () => ({
        url: `/api/admin/audit-log?limit=50&action=team.update&actor_id=${ctx.adminId}`,
        token: ctx.admin,
      }),
      check: expectItems(1),
    },
    auditedTeamPatch(ctx.teams, ctx.admin),
  ]
}

/** The audited write of both scale benches: a `PATCH` of one of `teams` in turn. */
export function auditedTeamPatch(teams, token) {
  return {
    name: 'PATCH /api/admin/teams/:id (audited)',
    request: (i) => ({
      method: 'PATCH',
      url: `/api/admin/teams/${teams[i % teams.length]}`,
      token,
      body: { description: `Scale run ${i}` },
    }),
  }
}

export function serviceEnv(db, dataDir) {
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    // One public address for every instance of the database: its access tokens name it.
    PUBLIC_URL: 'http://127.0.0.1:8080',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_GENERAL: '0',
    SCIM_RATE_LIMIT: '1000000',
  }
}

/** Signs the two people in and creates a SCIM credential: the tokens the operations use. */
async function sessionsOf(base, seeded) {
  const login = (email) =>
    api(base, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })
  const admin = (await login('admin@corp.example')).token
  const person = (await login('me@corp.example')).token
  const credential = await api(base, 'POST', '/api/admin/scim/credentials', {
    token: admin,
    body: { name: 'scale bench', current_password: PASSWORD },
  })
  // Audit events of the administrator's own team changes, for the filtered page.
  await api(base, 'PATCH', `/api/admin/teams/${seeded.teams[0]}`, {
    token: admin,
    body: { description: 'Seeded change' },
  })
  return {
    admin,
    person,
    scim: credential.token,
    adminId: seeded.adminId,
    teams: seeded.teams,
    deepCursor: seeded.deepCursor,
  }
}

/**
 * Seconds until the audit integrity check a service runs when it starts has recorded its result
 * (audit_monitor, at or after `startedAt`): over 200,000 events it takes seconds of the process's
 * time, and a measurement taken meanwhile is of the check as much as of the operation. Read from
 * the database itself: no request reaches the service, so its memory then is the idle service's.
 */
async function checkRecorded(db, startedAt) {
  const waited = performance.now()
  const read = await monitorReader(db)
  try {
    for (;;) {
      const at = await read()
      if (at !== null && new Date(at).getTime() >= startedAt)
        return round((performance.now() - waited) / 1000)
      if (performance.now() - waited > 300_000)
        throw new Error('the start-up audit integrity check did not finish within 300 s')
      await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    await read.close()
  }
}

/** A reader of audit_monitor.checked_at on the instance's database, and its close. */
async function monitorReader(db) {
  const statement = 'select checked_at from audit_monitor'
  if (db.url.startsWith('sqlite:')) {
    const { DatabaseSync } = await import('node:sqlite')
    const sqlite = new DatabaseSync(db.url.slice('sqlite:'.length), { readOnly: true })
    const query = sqlite.prepare(statement)
    return Object.assign(async () => query.get()?.checked_at ?? null, {
      close: async () => sqlite.close(),
    })
  }
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  return Object.assign(async () => (await client.query(statement)).rows[0]?.checked_at ?? null, {
    close: () => client.end(),
  })
}

/**
 * Seeds one instance, starts the service on it and measures its hot operations. The others are
 * measured on the small and the large instance side by side (measureInterleaved), slice by slice,
 * so that their ratio compares the data's sizes, not two stretches of the machine's speed: the
 * small instance is run with `keep` and stays up — its operations unmeasured, its `close` returned
 * — until the large one, given it as `partner`, has measured both (without a partner, an instance
 * measures its own alone). On the large instance, `extra` may start a peer (a second process of
 * the service on the same database, whose hot operations are measured in the same slices as the
 * first's) and runs its extras with the instance still up (the planner settings, writes/s).
 */
async function runInstance(engine, label, size, options, failures, { extra, keep, partner } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-scale-${engine}-`))
  const db = await prepareDatabase(engine, dataDir)
  const env = serviceEnv(db, dataDir)
  const result = { label, size }
  const started = performance.now()
  let server = null
  let peer = null
  try {
    const seeded = await seedScale(root, env, size)
    const { encodeCursor } = await import(path.join(root, 'dist/lib/pagination.js'))
    seeded.deepCursor = encodeCursor([seeded.deep.created_at, seeded.deep.id])
    result.seed_seconds = seeded.seconds
    console.error(`${engine} ${label}: seeded in ${JSON.stringify(seeded.seconds)} s`)
    const startedAt = Date.now()
    server = await start(path.join(root, 'dist/server.js'), env)
    // The start-up audit check answers nothing and runs beside requests: 1 s after start, on the
    // large log, is its memory; 1 s after it recorded its result, before any request, the idle
    // service's; then after the first requests (sign-ins, a credential, a team change).
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
    await sleep(1000)
    result.during_check_rss_mib = memoryMiB(server.child.pid, 'VmRSS')
    result.startup_check_s = round(1 + (await checkRecorded(db, startedAt)))
    await sleep(1000)
    result.idle_rss_mib = memoryMiB(server.child.pid, 'VmRSS')
    const ctx = await sessionsOf(server.base, seeded)
    await sleep(1000)
    result.after_first_requests_rss_mib = memoryMiB(server.child.pid, 'VmRSS')
    if (extra?.startPeer !== undefined) {
      const started = await extra.startPeer(env, db)
      peer = started.peer
      result.pool_startup_check_s = started.startupCheckS
    }
    result.operations = {}
    const only = options.only
    const chosen = operations(ctx).filter(
      (op) => only === null || only.some((text) => op.name.includes(text)),
    )
    if (keep) {
      const live = { result, base: server.base, ctx, server, peer }
      ;[server, peer] = [null, null]
      return { ...live, close: () => closeInstance(engine, live, { db, dataDir, started }) }
    }
    const hot = chosen.filter((op) => op.hot)
    const processes = { server, peer, partner }
    if (hot.length > 0)
      Object.assign(
        result,
        await measureHot(engine, hot, processes, ctx, seeded, db, options, failures),
      )
    const others = chosen.filter((op) => !op.hot)
    await measureOthers(others, server.base, partner, options, failures, result)
    if (extra !== undefined)
      Object.assign(result, await extra.run({ env, server, peer, ctx, seeded, db }))
    result.peak_rss_mib = memoryMiB(server.child.pid, 'VmHWM')
    if (peer !== null) result.peer_peak_rss_mib = memoryMiB(peer.child.pid, 'VmHWM')
    await Promise.all([stop(server), peer === null ? null : stop(peer)])
    server = null
    peer = null
    if (extra !== undefined) {
      // The seeded log is what the service writes: its integrity check passes, timed.
      try {
        result.audit_verify_s = cli(['audit', 'verify', '--database'], env)
      } catch (error) {
        failures.push(`${engine} audit verify --database: ${error}`)
      }
      if (engine === 'sqlite') result.backup_restore = backupAndRestore(env, dataDir, failures)
    }
  } catch (error) {
    failures.push(`${engine} ${label}: ${error.stack ?? error}`)
  }
  return closeInstance(engine, { result, server, peer }, { db, dataDir, started })
}

/**
 * The operations other than the hot ones: with a partner (the small instance, still up), each
 * measured on both side by side, WARM_UP requests of each first; without one, on this instance
 * alone.
 */
async function measureOthers(others, base, partner, options, failures, result) {
  for (const op of others) {
    if (!partner) {
      result.operations[op.name] = await measure(op, base, options.requests, failures)
      continue
    }
    const small = operations(partner.ctx).find((candidate) => candidate.name === op.name)
    const pair = [
      { ...small, base: partner.base },
      { ...op, base },
    ]
    const [ofSmall, ofLarge] = await measureInterleaved(pair, options.requests, failures, WARM_UP)
    partner.result.operations[op.name] = ofSmall
    result.operations[op.name] = ofLarge
  }
}

/** Stops an instance's processes (its peak memory read first), drops its data; its result. */
async function closeInstance(engine, { result, server, peer }, { db, dataDir, started }) {
  try {
    if (server !== null) result.peak_rss_mib ??= memoryMiB(server.child.pid, 'VmHWM')
    if (server !== null) await stop(server)
    if (peer !== null) await stop(peer)
  } finally {
    await db.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  result.seconds = Math.round((performance.now() - started) / 1000)
  console.error(`${engine} ${result.label}: done in ${result.seconds} s`)
  return result
}

/**
 * The hot operations, measured side by side (measureInterleaved) on either instance; on PostgreSQL
 * beside the baselines of bench/bare-server.mjs — the bare route; the same route doing /me's one
 * indexed read (the very statement and values the service runs) through a plain `pg` Pool; and the
 * same with the redirect's statement — started for the purpose on the same database, and, when
 * there is a `peer` (the plain pool reader's process), its hot operations too, and those of the
 * small instance when it is the `partner`, all in the same slices. The baselines get the requests
 * the service gets, the same Authorization header included (they ignore it), so the two parse the
 * same bytes.
 */
async function measureHot(engine, hot, processes, ctx, seeded, db, options, failures) {
  const { server, peer, partner } = processes
  const ops = hot.map((op) => ({ ...op, base: server.base }))
  const count = options.requests
  // The small instance's own, in the same slices (its tokens).
  const ofPartner = partner
    ? operations(partner.ctx)
        .filter((op) => hot.some((chosen) => chosen.name === op.name))
        .map((op) => ({ ...op, base: partner.base }))
    : []
  const keepPartner = (measured, from) =>
    ofPartner.forEach((op, i) => (partner.result.operations[op.name] = measured[from + i]))
  if (engine !== 'postgres') {
    const measured = await measureInterleaved([...ops, ...ofPartner], count, failures)
    keepPartner(measured, ops.length)
    return { operations: Object.fromEntries(hot.map((op, i) => [op.name, measured[i]])) }
  }
  const { me, go } = await hotStatements(jwtClaims(ctx.person).sid, seeded.personId)
  const bare = await start(
    path.join(root, 'bench/bare-server.mjs'),
    {
      BARE_PG_URL: db.url,
      BARE_PG_TEXT: me.text,
      BARE_PG_VALUES: JSON.stringify(me.values),
      BARE_PG_GO_TEXT: go.text,
      BARE_PG_GO_VALUES: JSON.stringify(go.values),
    },
    '/',
  )
  try {
    const baseline = (name, url) => ({
      name,
      base: bare.base,
      request: () => ({ url, token: ctx.person }),
    })
    const baselines = [
      baseline('bare', '/'),
      baseline('bare + pg', '/pg'),
      baseline('bare + pg, the redirect’s read', '/pg-go'),
    ]
    const pooled = peer === null ? [] : hot.map((op) => ({ ...op, base: peer.base }))
    const all = [...baselines, ...ops, ...pooled, ...ofPartner]
    const measured = await measureInterleaved(all, count, failures)
    keepPartner(measured, all.length - ofPartner.length)
    const named = (from) => Object.fromEntries(hot.map((op, i) => [op.name, measured[from + i]]))
    return {
      baselines: { bare: measured[0], bare_pg: measured[1], bare_pg_go: measured[2] },
      operations: named(baselines.length),
      ...(peer !== null && { pool_reader: named(baselines.length + hot.length) }),
    }
  } finally {
    await stop(bare)
  }
}

/** Runs a CLI command to its end (a non-zero exit throws): its seconds. */
function cli(args, cliEnv) {
  const started = performance.now()
  execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), ...args], {
    env: { ...process.env, ...cliEnv, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return Math.round(performance.now() - started) / 1000
}

/** The CLI's backup of the large SQLite database, and its restore into a fresh directory. */
function backupAndRestore(env, dataDir, failures) {
  const file = path.join(dataDir, 'backup.db')
  const restoredDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-scale-restore-'))
  try {
    const backupS = cli(['backup', file], env)
    const bytes = fs.statSync(file).size
    const restoreS = cli(['restore', file], {
      ...env,
      DATA_DIR: restoredDir,
      DATABASE_URL: `sqlite:${path.join(restoredDir, 'scale.db')}`,
    })
    return { backup_s: backupS, restore_s: restoreS, mib: Math.round(bytes / 1048576) }
  } catch (error) {
    failures.push(`backup/restore: ${error}`)
    return null
  } finally {
    fs.rmSync(restoredDir, { recursive: true, force: true })
  }
}

// ---- PostgreSQL extras ----------------------------------------------------------------------

/**
 * A statement and its values as the service compiles them, caught from a Kysely whose connection
 * answers nothing: `run(db, marker)` calls the service's function; `values` maps each marker to
 * the value to run it with.
 */
async function caught(run, values) {
  const { Kysely, PostgresDialect } = await import('kysely')
  let statement = null
  const client = {
    query(config, params) {
      statement ??= typeof config === 'string' ? { text: config, values: params } : config
      return Promise.resolve({ rows: [], command: 'SELECT', rowCount: 0 })
    },
    release() {},
  }
  const pool = { connect: async () => client, end: async () => undefined }
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) })
  await run(db)
  await db.destroy()
  return {
    text: statement.text,
    values: statement.values.map((value) => (value in values ? values[value] : value)),
  }
}

/** /me's statement (for the session `sessionId`) and the go redirect's (for bench-wiki). */
export async function hotStatements(sessionId, userId) {
  const { findSession } = await import(path.join(root, 'dist/identity/sessions.repo.js'))
  const { findSessionWithGoCandidates } = await import(path.join(root, 'dist/modules/go/repo.js'))
  return {
    me: await caught((db) => findSession(db, 'SESSION'), { SESSION: sessionId }),
    go: await caught((db) => findSessionWithGoCandidates(db, 'SESSION', 'USER', 'SLUG'), {
      SESSION: sessionId,
      USER: userId,
      SLUG: 'bench-wiki',
    }),
  }
}

/**
 * What the hot connections' planner settings buy on this database: each hot statement run as a
 * named prepared statement on two connections — one with the settings the pipelined connections
 * use (generic plans, no sequential or bitmap scans: HOT_READ_SETTINGS), one with generic plans
 * only — alternately, `rounds` × `count` times each. Reports the microseconds per execution
 * (round trip from here, median of the rounds) and the generic plan's node types on each.
 */
async function plannerSettings(url, statements, rounds = 5, count = 200) {
  const { HOT_READ_SETTINGS } = await import(path.join(root, 'dist/db/postgres.js'))
  const connect = async (settings) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(settings)
    return client
  }
  const withSettings = await connect(HOT_READ_SETTINGS)
  const genericOnly = await connect({
    text: 'select set_config($1, $2, false)',
    values: HOT_READ_SETTINGS.values.slice(0, 2),
  })
  const nodes = (plan) => {
    const on = plan['Index Name'] ?? plan['Relation Name']
    const own = [`${plan['Node Type']}${on ? ` ${on}` : ''}`]
    return [...own, ...(plan.Plans ?? []).flatMap(nodes)]
  }
  const result = {}
  try {
    for (const [name, statement] of Object.entries(statements)) {
      const query = { name: `planner_${name}`, text: statement.text, values: statement.values }
      const timings = { settings_on: [], generic_only: [] }
      for (let r = 0; r < rounds; r++) {
        for (const [key, client] of [
          ['settings_on', withSettings],
          ['generic_only', genericOnly],
        ]) {
          const started = performance.now()
          for (let i = 0; i < count; i++) await client.query(query)
          timings[key].push(((performance.now() - started) * 1000) / count)
        }
      }
      const median = (list) => round(list.sort((a, b) => a - b)[Math.floor(list.length / 2)])
      const plan = async (client) => {
        const params = statement.values.map((value) => client.escapeLiteral(String(value)))
        const explained = await client.query(
          `explain (format json) execute planner_${name}(${params.join(', ')})`,
        )
        return nodes(explained.rows[0]['QUERY PLAN'][0].Plan)
      }
      result[name] = {
        settings_on_us: median(timings.settings_on),
        generic_only_us: median(timings.generic_only),
        settings_on_plan: await plan(withSettings),
        generic_only_plan: await plan(genericOnly),
      }
    }
  } finally {
    await withSettings.end()
    await genericOnly.end()
  }
  return result
}

/** Audited writes per second: concurrent PATCH of teams, 20 connections to each instance. */
export async function auditedWrites(bases, ctx, seconds, failures) {
  let n = 0
  const runs = bases.map((base) =>
    autocannon({
      url: base,
      connections: 20,
      duration: seconds,
      requests: [
        {
          method: 'PATCH',
          setupRequest: (req) => {
            n++
            return {
              ...req,
              path: `/api/admin/teams/${ctx.teams[n % ctx.teams.length]}`,
              headers: { authorization: `Bearer ${ctx.admin}`, 'content-type': 'application/json' },
              body: JSON.stringify({ description: `Concurrent ${n}` }),
            }
          },
        },
      ],
    }),
  )
  const results = await Promise.all(runs)
  const ok = results.reduce((sum, r) => sum + r['2xx'], 0)
  const bad = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0)
  const timeouts = results.reduce((sum, r) => sum + r.timeouts, 0)
  if (bad > 0) failures.push(`audited writes from ${bases.length}: ${bad} failed`)
  return { per_second: Math.round(ok / seconds), failed: bad, timeouts }
}

/**
 * The large PostgreSQL instance's extras: a peer with the plain pool reader
 * (POSTGRES_HOT_READS=pool) on the same database, started before the hot operations are measured
 * so that its figures are taken in their slices; then what the planner settings buy, and audited
 * writes from one instance and from both.
 */
function postgresExtras(options, failures) {
  return {
    async startPeer(env, db) {
      const startedAt = Date.now()
      const peer = await start(path.join(root, 'dist/server.js'), {
        ...env,
        POSTGRES_HOT_READS: 'pool',
      })
      try {
        return { peer, startupCheckS: await checkRecorded(db, startedAt) }
      } catch (error) {
        await stop(peer)
        throw error
      }
    },
    async run({ server, peer, ctx, seeded, db }) {
      const statements = await hotStatements(jwtClaims(ctx.person).sid, seeded.personId)
      const bases = [server.base, peer.base]
      return {
        planner_settings: await plannerSettings(db.url, statements),
        audited_writes: {
          one_instance: await auditedWrites([server.base], ctx, options.writeSeconds, failures),
          two_instances: await auditedWrites(bases, ctx, options.writeSeconds, failures),
        },
      }
    },
  }
}

// ---- report ---------------------------------------------------------------------------------

function within(small, large) {
  if (small === null || large === null) return null
  return {
    p50_ratio: round(large.p50 / small.p50),
    p99_ratio: round(large.p99 / small.p99),
    p50_ok: large.p50 <= 1.5 * small.p50 + 0.5,
    p99_ok: large.p99 <= 2 * small.p99 + 2,
  }
}

function table(engineResults) {
  const lines = []
  const pad = (text, n) => String(text).padEnd(n)
  const fmt = (m) => (m === null || m === undefined ? '-' : `${m.p50} / ${m.p99}`)
  for (const [engine, r] of Object.entries(engineResults)) {
    if (r.small?.operations === undefined || r.large?.operations === undefined) continue
    lines.push(
      '',
      `${engine} — p50 / p99 ms, sequential; goal: large p50 ≤ 1.5×small+0.5, p99 ≤ 2×small+2`,
    )
    const pgBase = r.large.baselines
    lines.push(
      pad('operation', 56) +
        pad('small', 16) +
        pad('large', 16) +
        pad('p50×  p99×', 14) +
        'goal' +
        (pgBase ? '   bare÷  bare+pg÷  own read÷  pool reader (bare+pg÷)' : ''),
    )
    for (const name of Object.keys(r.large.operations)) {
      const small = r.small.operations[name]
      const large = r.large.operations[name]
      const w = within(small, large)
      let line =
        pad(name, 56) +
        pad(fmt(small), 16) +
        pad(fmt(large), 16) +
        pad(w ? `${w.p50_ratio}  ${w.p99_ratio}` : '-', 14) +
        pad(w ? (w.p50_ok && w.p99_ok ? 'ok' : 'MISS') : '-', 4)
      if (pgBase && large) {
        const ratio = (base, of = large) => (base && of ? round(base.p50 / of.p50) : '-')
        // The redirects run their own statement, heavier than /me's: compared with it too.
        const own = name.startsWith('go redirect') ? ratio(pgBase.bare_pg_go) : '-'
        line += `   ${pad(ratio(pgBase.bare), 6)} ${pad(ratio(pgBase.bare_pg), 9)} ${pad(own, 10)}`
        const pooled = r.large.pool_reader?.[name]
        if (pooled) line += ` ${fmt(pooled)} (${ratio(pgBase.bare_pg, pooled)})`
      }
      lines.push(line)
    }
    if (pgBase)
      lines.push(
        `baselines (large): bare ${fmt(pgBase.bare)}, bare + one pg read ${fmt(pgBase.bare_pg)}, bare + the redirect's read ${fmt(pgBase.bare_pg_go)}`,
      )
    for (const [name, p] of Object.entries(r.large.planner_settings ?? {}))
      lines.push(
        `planner settings, ${name}: ${p.settings_on_us} µs with seqscan/bitmapscan off, ${p.generic_only_us} µs generic plan only (${p.settings_on_plan.join(' > ')} | ${p.generic_only_plan.join(' > ')})`,
      )
    if (r.large.audited_writes)
      lines.push(
        `audited writes/s (PATCH team, 20 connections each): one instance ${r.large.audited_writes.one_instance.per_second}, two instances ${r.large.audited_writes.two_instances.per_second}`,
      )
    lines.push(
      `memory MiB (small / large): 1 s after start, during the start-up check ${r.small.during_check_rss_mib} / ${r.large.during_check_rss_mib}; idle after it ${r.small.idle_rss_mib} / ${r.large.idle_rss_mib}; after the first requests ${r.small.after_first_requests_rss_mib} / ${r.large.after_first_requests_rss_mib}; peak (VmHWM) ${r.small.peak_rss_mib} / ${r.large.peak_rss_mib}`,
    )
    if (r.large.backup_restore)
      lines.push(
        `backup of the large database (${r.large.backup_restore.mib} MiB): ${r.large.backup_restore.backup_s} s, restore ${r.large.backup_restore.restore_s} s`,
      )
    if (r.large.audit_verify_s !== undefined)
      lines.push(`audit verify --database of the large log: ${r.large.audit_verify_s} s`)
    lines.push(
      `start-up audit integrity check, from the first answer to its recorded result, s: small ${r.small.startup_check_s}, large ${r.large.startup_check_s}${r.large.pool_startup_check_s === undefined ? '' : `, pool reader's process ${r.large.pool_startup_check_s}`}`,
    )
    lines.push(`seeding s (large): ${JSON.stringify(r.large.seed_seconds)}`)
  }
  return lines.join('\n')
}

export async function runScale(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'scale-factor': { type: 'string', default: '1' },
      engine: { type: 'string' },
      requests: { type: 'string', default: '400' },
      'write-seconds': { type: 'string', default: '10' },
      json: { type: 'string' },
      only: { type: 'string' },
    },
  })
  const factor = Number(values['scale-factor'])
  const options = {
    requests: Number(values.requests),
    writeSeconds: Number(values['write-seconds']),
    only: values.only === undefined ? null : values.only.split(','),
  }
  const engines =
    values.engine === undefined || values.engine === 'both'
      ? (await postgresAnswers())
        ? ['sqlite', 'postgres']
        : ['sqlite']
      : [values.engine]
  const started = performance.now()
  const loadBefore = os.loadavg()
  const failures = []
  const results = {}
  for (const engine of engines) {
    const kept = await runInstance(engine, 'small', SMALL, options, failures, { keep: true })
    // A small instance that failed has returned its result: the large one measures alone.
    const partner = kept.close === undefined ? null : kept
    let large
    try {
      large = await runInstance(engine, 'large', sizes(factor), options, failures, {
        partner,
        extra:
          options.only !== null
            ? undefined
            : engine === 'postgres'
              ? postgresExtras(options, failures)
              : { run: () => ({}) },
      })
    } finally {
      if (partner !== null) await partner.close()
    }
    results[engine] = { small: partner === null ? kept : partner.result, large }
  }
  const report = {
    when: new Date().toISOString(),
    scale_factor: factor,
    seconds: Math.round((performance.now() - started) / 1000),
    load_before: loadBefore.map((l) => round(l)),
    load_after: os.loadavg().map((l) => round(l)),
    cpus: os.cpus().length,
    engines: results,
    goal: Object.fromEntries(
      Object.entries(results).map(([engine, r]) => [
        engine,
        Object.fromEntries(
          Object.keys(r.large.operations ?? {}).map((name) => [
            name,
            within(r.small.operations?.[name] ?? null, r.large.operations[name]),
          ]),
        ),
      ]),
    ),
    failures,
  }
  console.log(table(results))
  console.log(
    `\nscale factor ${factor}; ${report.seconds} s; load ${report.load_before.join(' ')} → ${report.load_after.join(' ')} on ${report.cpus} CPUs`,
  )
  if (report.seconds > 12 * 60)
    console.error(`note: the run took ${report.seconds} s, more than its 12-minute budget`)
  if (values.json !== undefined)
    fs.writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`)
  if (failures.length > 0) {
    console.error(`FAILED:\n${failures.join('\n')}`)
    return 1
  }
  return 0
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.exit(await runScale(process.argv.slice(2)))
