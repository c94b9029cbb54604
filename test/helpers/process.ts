/**
 * Runs the built server (dist/server.js) as a real process, as an operator would: `npm test`
 * builds first, so these tests exercise exactly what `npm start` runs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import path from 'node:path'
import { assertBuilt, SERVER_ENTRY } from './built-server.js'
import { checkExchange, contractFor, type Contract } from './contract.js'

export { assertBuilt, SERVER_ENTRY }

export interface ServerProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
  /** What the process wrote to stdout alone (the JSON log) and to stderr alone (the terminal). */
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** fetch() on this server, every exchange checked against the OpenAPI document it serves. */
  fetch(path: string, init?: RequestInit): Promise<Response>
}

const documents = new Map<string, Promise<Contract>>()

/**
 * The process tests' HTTP client: a fetch whose answers are held to the OpenAPI contract
 * (test/helpers/contract.ts), like app.inject in test/helpers/app.ts. The body is read here, so
 * the caller gets an equivalent Response built from it.
 */
export async function contractFetch(
  baseUrl: string,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  let contract = documents.get(baseUrl)
  if (contract === undefined) {
    contract = fetch(`${baseUrl}/api/openapi.json`).then(async (response) =>
      contractFor((await response.json()) as Record<string, unknown>),
    )
    documents.set(baseUrl, contract)
  }
  const response = await fetch(`${baseUrl}${path}`, init)
  const body = Buffer.from(await response.arrayBuffer())
  const requestHeaders = Object.fromEntries(new Headers(init.headers).entries())
  checkExchange(await contract, {
    method: init.method ?? 'GET',
    url: path,
    requestHeaders,
    requestBody: typeof init.body === 'string' ? init.body : undefined,
    status: response.status,
    responseHeaders: Object.fromEntries(response.headers.entries()),
    responseBody: body.toString(),
  })
  const empty =
    response.status === 204 ||
    response.status === 304 ||
    (response.status >= 100 && response.status < 200)
  return new Response(empty ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

/** Starts the server with PORT=0 and resolves once it listens, with the address it chose. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  assertBuilt()
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout.on('data', check)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`server exited before listening:\n${output}`))
    })
  })
  return {
    child,
    baseUrl,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    fetch: (path, init) => contractFetch(baseUrl, path, init),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs a command of the built distribution to completion. */
export function runProcess(
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

/**
 * The environment two instances of one deployment share (README.md, "Several instances"): one
 * database — the test's PostgreSQL schema, or one SQLite file in `dataDir` — and the same keys,
 * the audit signing key included, so both sign the one audit log. Each instance still gets its
 * own DATA_DIR.
 */
export function sharedInstanceEnv(
  database: { url: string },
  dataDir: string,
  engine: string,
): Record<string, string> {
  return {
    DATABASE_URL:
      engine === 'postgres' ? database.url : `sqlite:${path.join(dataDir, 'shared.db')}`,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    AUDIT_SIGNING_KEY: generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'der', type: 'pkcs8' })
      .toString('base64'),
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_ITERATIONS: '1',
  }
}
