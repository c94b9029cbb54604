/**
 * A company's instance built through the public API, as an operator (or a check from outside)
 * builds it, timed on the built server: 100,000 links imported in five 20,000-link JSON files
 * (POST /api/links/import/file, one person, 1 title in 400 holds the searched word), and 10,000
 * people created by SCIM (POST /scim/v2/Users, 4 at a time, SCIM_RATE_LIMIT raised). Prints the
 * times, the server's resident memory (now and peak, VmHWM) and the machine's load, and exits
 * non-zero when a request fails or a budget is exceeded (import ≤ 60 s on SQLite, SCIM ≤ 60 s).
 *
 * Then the daily operations of the scale bench that such an instance holds (bench/scale.mjs:
 * sequential requests, p50 / p99 of every answer) on it and on a small instance built the same way
 * (100 links, 60 people), with the same goal: large p50 ≤ 1.5 × small + 0.5 ms, p99 ≤ 2 × small +
 * 2 ms. Here the person sees every link (the scale bench's person sees two fifths of them), so a
 * search finds every match of the word: 250 against the small instance's one. A miss is reported,
 * not a failure.
 *
 *   npm run build:server && node bench/scale-import.mjs [--engine sqlite|postgres] [--links N]
 *     [--people N] [--requests N (per operation, default 400; 0 skips the operations)]
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { memoryMiB } from './proc.mjs'
import { auditedTeamPatch, measure, prepareDatabase, serviceEnv, start, stop } from './scale.mjs'

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    links: { type: 'string', default: '100000' },
    people: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '400' },
  },
})
const root = path.resolve(import.meta.dirname, '..')
const FILE_LINKS = 20_000
const BUDGET_S = 60
const PASSWORD = 'scale benchmark passphrase'
const SMALL = { links: 100, people: 60 }

function linksFile(file, count) {
  const links = Array.from({ length: count }, (_, i) => {
    const n = file * FILE_LINKS + i
    return {
      url: `https://intranet.example/${file}/${i}`,
      title: n % 400 === 0 ? `Quokka notes ${n}` : `Page ${n} of the handbook`,
      slug: `page-${n}`,
      tags: [`folder-${n % 20}`],
    }
  })
  return JSON.stringify({ format: 'switchboard-links', version: 1, links })
}

const seconds = (since) => (performance.now() - since) / 1000

/**
 * One request of the build, by fetch: several at a time (the scale bench's own client keeps one
 * connection, for sequential measurements).
 */
async function api(base, method, url, { token, body, type = 'application/json' } = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': type }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : null
}

/** The links in 20,000-link files, each file's report checked; returns the seconds taken. */
async function importLinks(base, token, count, failures) {
  const started = performance.now()
  for (let file = 0; file * FILE_LINKS < count; file++) {
    const size = Math.min(FILE_LINKS, count - file * FILE_LINKS)
    const fileStarted = performance.now()
    const report = await api(base, 'POST', '/api/links/import/file?format=json', {
      token,
      body: linksFile(file, size),
      type: 'application/octet-stream',
    })
    if (count >= FILE_LINKS)
      console.log(
        `import file ${file + 1}: ${report.imported} links in ${seconds(fileStarted).toFixed(1)} s`,
      )
    if (report.imported !== size) failures.push(`file ${file + 1} imported ${report.imported}`)
  }
  return seconds(started)
}

/** `count` people by SCIM, 4 requests at a time; returns the seconds taken. */
async function createPeople(base, scim, count) {
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < count) {
      const n = next++
      await api(base, 'POST', '/scim/v2/Users', {
        token: scim,
        type: 'application/scim+json',
        body: {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: `person${n}@corp.example`,
          externalId: `ext-${n}`,
          name: { givenName: `Given${n}`, familyName: `Family${n % 1000}` },
          emails: [{ value: `person${n}@corp.example`, primary: true }],
          active: true,
        },
      })
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
  return seconds(started)
}

/** A cursor `pages` pages of 50 into the person's links (or the last one there is). */
async function deepCursor(base, token, pages) {
  let cursor = null
  for (let page = 0; page < pages; page++) {
    const query = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const { next_cursor: next } = await api(base, 'GET', `/api/links?limit=50${query}`, { token })
    if (next === null) break
    cursor = next
  }
  return cursor
}

/**
 * A new instance on its own database, set up through the API: its first administrator (who also
 * imports the links), the links, a SCIM credential and the people, two teams (one changed, for the
 * audit log's filtered page).
 */
async function buildInstance(size, failures, report) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-scale-'))
  const db = await prepareDatabase(values.engine, dataDir)
  const env = { ...serviceEnv(db, dataDir), TRUST_PROXY: '127.0.0.1' }
  const instance = { dataDir, db, server: null }
  try {
    instance.server = await start(path.join(root, 'dist/server.js'), env)
    const { base } = instance.server
    const setupCode = execFileSync(
      process.execPath,
      [path.join(root, 'dist/cli.js'), 'setup-code'],
      {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      },
    ).trim()
    const { token } = await api(base, 'POST', '/api/auth/setup', {
      body: {
        email: 'scale@example.com',
        name: 'Scale Admin',
        password: PASSWORD,
        setup_code: setupCode,
      },
    })
    const importS = await importLinks(base, token, size.links, failures)
    const credential = await api(base, 'POST', '/api/admin/scim/credentials', {
      token,
      // A provisioning credential is credential-equivalent: the password proves the caller.
      body: { name: 'bench', current_password: PASSWORD },
    })
    const scim = credential.secret ?? credential.token
    const scimS = await createPeople(base, scim, size.people)
    report?.({ importS, scimS, pid: instance.server.child.pid })
    const teams = []
    for (const name of ['Platform', 'Support'])
      teams.push((await api(base, 'POST', '/api/admin/teams', { token, body: { name } })).id)
    await api(base, 'PATCH', `/api/admin/teams/${teams[0]}`, {
      token,
      body: { description: 'Changed once' },
    })
    const me = await api(base, 'GET', '/api/users/me', { token })
    const cursor = await deepCursor(base, token, Math.min(40, Math.floor(size.links / 50) - 1))
    Object.assign(instance, { token, scim, teams, adminId: me.id, cursor })
  } catch (error) {
    // fetch's own message is "fetch failed"; the reason (a closed socket, a timeout) is its cause.
    failures.push(`${String(error)}${error.cause ? ` (${String(error.cause)})` : ''}`)
  }
  return instance
}

async function removeInstance(instance) {
  if (instance.server !== null) await stop(instance.server)
  await instance.db.drop()
  fs.rmSync(instance.dataDir, { recursive: true, force: true })
}

/** The scale bench's operations that an instance built this way holds, for the person `c`. */
function operations(c) {
  const scimFilter = (filter) => `/scim/v2/Users?filter=${encodeURIComponent(filter)}&count=100`
  const deep = c.cursor === null ? '' : `&cursor=${encodeURIComponent(c.cursor)}`
  const list = [
    ['GET /api/users/me', { url: '/api/users/me' }],
    ['go redirect (path)', { url: '/go/page-7/guides/setup?tab=2' }],
    ['GET /api/links?limit=50', { url: '/api/links?limit=50' }],
    ['GET /api/links deep page (cursor)', { url: `/api/links?limit=50${deep}` }],
    ['GET /api/links?q=quokka', { url: '/api/links?q=quokka&limit=50' }],
    ['GET /api/links?q=quokka&limit=1', { url: '/api/links?q=quokka&limit=1' }],
    ['GET /api/admin/users?q=person42', { url: '/api/admin/users?q=person42&limit=50' }],
    ['GET /api/admin/users?q=person4', { url: '/api/admin/users?q=person4&limit=50' }],
    ['SCIM userName eq', { url: scimFilter('userName eq "person42@corp.example"'), scim: true }],
    ['SCIM name.familyName eq', { url: scimFilter('name.familyName eq "Family42"'), scim: true }],
    ['GET /api/admin/audit-log?limit=50', { url: '/api/admin/audit-log?limit=50' }],
    [
      'GET /api/admin/audit-log filtered',
      { url: `/api/admin/audit-log?limit=50&action=team.update&actor_id=${c.adminId}` },
    ],
  ]
  const ops = list.map(([name, { url, scim }]) => ({
    name,
    request: () => ({ url, token: scim ? c.scim : c.token }),
  }))
  ops.push(auditedTeamPatch(c.teams, c.token))
  return ops
}

async function measureAll(instance, failures) {
  const results = new Map()
  if (instance.token === undefined) return results
  const count = Number(values.requests)
  for (const op of operations(instance))
    results.set(op.name, await measure(op, instance.server.base, count, failures))
  return results
}

function printOperations(small, large) {
  const pad = (text, n) => String(text).padEnd(n)
  const fmt = (m) => (m ? `${m.p50} / ${m.p99}` : '-')
  console.log(`\n${values.engine}, built through the API — p50 / p99 ms, sequential`)
  console.log(`${pad('operation', 38)}${pad('small', 18)}${pad('large', 18)}p50×   goal`)
  for (const [name, s] of small) {
    const l = large.get(name)
    const ok = s && l && l.p50 <= 1.5 * s.p50 + 0.5 && l.p99 <= 2 * s.p99 + 2
    const ratio = s && l ? (l.p50 / s.p50).toFixed(2) : '-'
    console.log(
      `${pad(name, 38)}${pad(fmt(s), 18)}${pad(fmt(l), 18)}${pad(ratio, 7)}${ok ? 'ok' : 'MISS'}`,
    )
  }
}

async function main() {
  const failures = []
  const links = Number(values.links)
  const people = Number(values.people)
  const large = await buildInstance({ links, people }, failures, ({ importS, scimS, pid }) => {
    console.log(`import: ${links} links in ${importS.toFixed(1)} s`)
    if (values.engine === 'sqlite' && importS > BUDGET_S)
      failures.push(`import ${importS.toFixed(1)} s`)
    console.log(`SCIM: ${people} creations in ${scimS.toFixed(1)} s`)
    if (scimS > BUDGET_S) failures.push(`SCIM ${scimS.toFixed(1)} s`)
    console.log(
      `memory: ${memoryMiB(pid, 'VmRSS')} MiB resident, peak ${memoryMiB(pid, 'VmHWM')} MiB`,
    )
  })
  let largeResults = new Map()
  try {
    if (Number(values.requests) > 0) largeResults = await measureAll(large, failures)
  } finally {
    await removeInstance(large)
  }
  if (Number(values.requests) > 0) {
    const small = await buildInstance(SMALL, failures)
    try {
      printOperations(await measureAll(small, failures), largeResults)
    } finally {
      await removeInstance(small)
    }
  }
  console.log(
    `engine ${values.engine}; load: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  if (failures.length > 0) {
    console.error(`FAILED: ${failures.join('; ')}`)
    process.exit(1)
  }
}

await main()
