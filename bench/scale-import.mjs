/**
 * The paths that build a company's instance through the public API, timed on the built server:
 * 100,000 links imported in five 20,000-link JSON files (POST /api/links/import/file, one person),
 * and 10,000 people created by SCIM (POST /scim/v2/Users, 4 at a time, SCIM_RATE_LIMIT raised).
 * Prints the times, the server's resident memory (now and peak, VmHWM) and the machine's load,
 * and exits non-zero when a request fails or a budget is exceeded (import ≤ 60 s on SQLite, SCIM
 * ≤ 60 s).
 *
 *   npm run build:server && node bench/scale-import.mjs [--engine sqlite|postgres] [--links N]
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { memoryMiB } from './proc.mjs'

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    links: { type: 'string', default: '100000' },
    people: { type: 'string', default: '10000' },
  },
})
const root = path.resolve(import.meta.dirname, '..')
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const FILE_LINKS = 20_000
const BUDGET_S = 60

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function api(base, method, url, body, token, type = 'application/json') {
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

async function database(dataDir) {
  if (values.engine === 'sqlite')
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

function linksFile(file) {
  const links = Array.from({ length: FILE_LINKS }, (_, i) => {
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

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-scale-'))
  const db = await database(dataDir)
  const port = await freePort()
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_GENERAL: '0',
    SCIM_RATE_LIMIT: '1000000',
    TRUST_PROXY: '127.0.0.1',
    PORT: String(port),
    HOST: '127.0.0.1',
  }
  const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const failures = []
  try {
    for (let tries = 0; ; tries++) {
      try {
        if ((await fetch(`${base}/api/health`)).ok) break
      } catch {
        if (tries > 6000) throw new Error('the server did not start')
      }
      await new Promise((r) => setTimeout(r, 10))
    }
    const setupCode = execFileSync(
      process.execPath,
      [path.join(root, 'dist/cli.js'), 'setup-code'],
      {
        env,
        encoding: 'utf8',
      },
    ).trim()
    const password = 'scale benchmark passphrase'
    const { token } = await api(base, 'POST', '/api/auth/setup', {
      email: 'scale@example.com',
      name: 'Scale Admin',
      password,
      setup_code: setupCode,
    })

    const files = Math.ceil(Number(values.links) / FILE_LINKS)
    const importStart = performance.now()
    for (let file = 0; file < files; file++) {
      const started = performance.now()
      const report = await api(
        base,
        'POST',
        '/api/links/import/file?format=json',
        linksFile(file),
        token,
        'application/octet-stream',
      )
      const ms = Math.round(performance.now() - started)
      console.log(`import file ${file + 1}/${files}: ${report.imported} links in ${ms} ms`)
      if (report.imported !== FILE_LINKS)
        failures.push(`file ${file + 1} imported ${report.imported}`)
    }
    const importS = (performance.now() - importStart) / 1000
    console.log(`import: ${files * FILE_LINKS} links in ${importS.toFixed(1)} s`)
    if (values.engine === 'sqlite' && importS > BUDGET_S)
      failures.push(`import ${importS.toFixed(1)} s`)
    const search = performance.now()
    const found = await api(base, 'GET', '/api/links?q=quokka&limit=50', undefined, token)
    console.log(
      `search after import: ${found.items.length} items in ${(performance.now() - search).toFixed(1)} ms`,
    )

    const credential = await api(
      base,
      'POST',
      '/api/admin/scim/credentials',
      // A provisioning credential is credential-equivalent: the password proves the caller.
      { name: 'bench', current_password: password },
      token,
    )
    const scim = credential.secret ?? credential.token
    const people = Number(values.people)
    let next = 0
    const scimStart = performance.now()
    const worker = async () => {
      while (next < people) {
        const n = next++
        await api(
          base,
          'POST',
          '/scim/v2/Users',
          {
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: `person${n}@corp.example`,
            externalId: `ext-${n}`,
            name: { givenName: `Given${n}`, familyName: `Family${n % 1000}` },
            emails: [{ value: `person${n}@corp.example`, primary: true }],
            active: true,
          },
          scim,
          'application/scim+json',
        )
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    const scimS = (performance.now() - scimStart) / 1000
    console.log(`SCIM: ${people} creations in ${scimS.toFixed(1)} s`)
    if (scimS > BUDGET_S) failures.push(`SCIM ${scimS.toFixed(1)} s`)
    console.log(
      `memory: ${memoryMiB(child.pid, 'VmRSS')} MiB resident, peak ${memoryMiB(child.pid, 'VmHWM')} MiB`,
    )
  } catch (error) {
    // fetch's own message is "fetch failed"; the reason (a closed socket, a timeout) is its cause.
    failures.push(`${String(error)}${error.cause ? ` (${String(error.cause)})` : ''}`)
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    await db.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
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
