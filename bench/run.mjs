#!/usr/bin/env node
/**
 * npm run bench — starts the built service on a temporary SQLite database, creates a user, and
 * drives the authenticated endpoints with autocannon, next to a bare Fastify route (the
 * framework's ceiling) measured in the same run, authenticated by the access JWT and by a personal
 * API token. Prints one JSON document.
 *
 *   --duration <s>      seconds per scenario (default 10)
 *   --connections <n>   concurrent connections (default 10)
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } })
const duration = Number(values.duration)
const connections = Number(values.connections)
const root = path.resolve(import.meta.dirname, '..')

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${url} did not answer`)
}

async function start(script, env) {
  const port = await freePort()
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  return { child, base }
}

function measure(name, url, headers = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, headers }, (error, result) => {
      if (error) return reject(error)
      resolve({
        name,
        requests_per_second: Math.round(result.requests.average),
        latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
        requests: result.requests.total,
        errors: result.errors + result.timeouts,
        non_2xx: result.non2xx,
      })
    })
  })
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'))
const settings = {
  database: 'sqlite (temporary file, WAL)',
  log_level: 'warn',
  // The general limit (1000 requests per minute per credential) would stop a load test after a second.
  rate_limit_general: 0,
  connections,
  duration_seconds: duration,
  node: process.version,
  cpus: os.cpus().length,
}
const service = await start(path.join(root, 'dist/server.js'), { DATA_DIR: dataDir, LOG_LEVEL: settings.log_level, RATE_LIMIT_GENERAL: String(settings.rate_limit_general) })
const bare = await start(path.join(root, 'bench/bare-server.mjs'), {})
try {
  await waitFor(`${service.base}/api/health`)
  await waitFor(`${bare.base}/`)
  const setup = await fetch(`${service.base}/api/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', name: 'Bench User', password: 'benchmark passphrase 1' }),
  })
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.status} ${await setup.text()}`)
  const { token } = await setup.json()
  const created = await fetch(`${service.base}/api/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'bench' }),
  })
  if (created.status !== 201) throw new Error(`token creation failed: ${created.status} ${await created.text()}`)
  const apiToken = (await created.json()).token

  const jwt = { authorization: `Bearer ${token}` }
  const sb = { authorization: `Bearer ${apiToken}` }
  const results = []
  results.push(await measure('bare fastify: constant object', `${bare.base}/`))
  results.push(await measure('GET /api/users/me (Bearer JWT)', `${service.base}/api/users/me`, jwt))
  results.push(await measure('GET /api/users/me (Bearer sb_ token)', `${service.base}/api/users/me`, sb))
  results.push(await measure('GET /api/auth/mfa/status (Bearer JWT)', `${service.base}/api/auth/mfa/status`, jwt))
  results.push(await measure('GET /api/auth/mfa/status (Bearer sb_ token)', `${service.base}/api/auth/mfa/status`, sb))

  const ceiling = results[0].requests_per_second
  for (const result of results.slice(1)) result.ratio_to_bare = Number((result.requests_per_second / ceiling).toFixed(2))
  console.log(JSON.stringify({ settings, results }, null, 2))
  const failed = results.some((r) => r.errors > 0 || r.non_2xx > 0)
  process.exitCode = failed ? 1 : 0
} finally {
  service.child.kill('SIGTERM')
  bare.child.kill('SIGTERM')
  fs.rmSync(dataDir, { recursive: true, force: true })
}
