/**
 * Builds the real application against a fresh database for one test file, with a controllable
 * clock and every log line captured (security tests scan them for secrets).
 */
import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { buildApp } from '../../src/app.js'
import { parseConfig, type Config } from '../../src/config.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createDeps, type Deps } from '../../src/deps.js'
import { createLogger } from '../../src/logger.js'
import type { Clock } from '../../src/lib/time.js'
import { takeAppendOrderViolations, watchAuditAppendOrder } from './audit-append-order.js'
import { checkExchange, contractFor, violations, type Contract } from './contract.js'
import { createTestDatabase, makeTempDir, type TestDatabase } from './database.js'

export class TestClock implements Clock {
  private offsetMs = 0
  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000
  }
}

export interface TestContext {
  app: FastifyInstance
  deps: Deps
  config: Readonly<Config>
  clock: TestClock
  /** Every log line written so far, as raw JSON text. */
  logs: string[]
  database: TestDatabase
  dataDir: string
  /** The environment the configuration was parsed from (to start a second instance on it). */
  env: Record<string, string>
  /** The server secrets in use, for leak checks. */
  jwtSecret: string
  encryptionKeyHex: string
  close(): Promise<void>
}

export interface TestAppOptions {
  env?: Record<string, string>
  /** Rewrites the database URL the app connects to (e.g. through a fault-injecting proxy). */
  databaseVia?: (url: string) => string
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const dataDir = makeTempDir()
  const database = await createTestDatabase(dataDir)
  if (database.url.startsWith('postgres')) watchAuditAppendOrder()
  const jwtSecret = randomBytes(32).toString('base64url')
  const encryptionKeyHex = randomBytes(32).toString('hex')
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: options.databaseVia ? options.databaseVia(database.url) : database.url,
    DATABASE_POOL_SIZE: '5',
    JWT_SECRET: jwtSecret,
    ENCRYPTION_KEY: encryptionKeyHex,
    PUBLIC_URL: 'http://switchboard.test',
    LOG_LEVEL: 'info',
    // The real algorithm at its lowest cost, so the suite stays fast (docs/ARCHITECTURE.md,
    // convention 10).
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_ITERATIONS: '1',
    // Room for the concurrent sign-ins of feature tests; the bound itself is tested with its own
    // settings.
    PASSWORD_HASH_QUEUE: '1000',
    // The stand-in SMTP, OIDC and AI servers listen on 127.0.0.1
    // (test/security/outbound-destinations.test.ts turns this off).
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    ...options.env,
  }
  const config = parseConfig(env)
  const logs: string[] = []
  const logger = createLogger(config, { write: (line: string) => void logs.push(line) })
  const clock = new TestClock()
  const deps = createDeps(config, { clock, logger })
  await migrateToLatest(deps.database)
  const app = enforceContract(await buildApp(deps))
  await app.ready()
  return {
    app,
    deps,
    config,
    clock,
    logs,
    database,
    dataDir,
    env,
    jwtSecret,
    encryptionKeyHex,
    async close() {
      await app.close()
      await deps.close()
      await database.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** One application and database for the whole test file; the returned object fills in beforeAll. */
export function useTestApp(options: TestAppOptions = {}): TestContext {
  const context = {} as TestContext
  beforeAll(async () => {
    Object.assign(context, await startTestApp(options))
  })
  // A violation inside a burst whose results the test only counts must fail the test all the same.
  afterEach(() => {
    if (violations.length > 0)
      throw new Error(`OpenAPI contract violated:\n${violations.splice(0).join('\n')}`)
    // On PostgreSQL: nothing between an audit append and its commit (audit-append-order.ts).
    const appendOrder = takeAppendOrderViolations()
    if (appendOrder.length > 0)
      throw new Error(
        `An audited transaction ran SQL after its audit append:\n${appendOrder.join('\n')}`,
      )
  })
  afterAll(async () => {
    await context.close?.()
  })
  return context
}

type InjectedRequest = IncomingMessage & { _lightMyRequest?: { payload: unknown } }

/**
 * Every answer app.inject returns is checked against the document the app serves
 * (test/helpers/contract.ts); a violation rejects the call with the operation, status and problem.
 * The chained form (`app.inject().get(…)`) and the callback form are left unchecked; the suite uses
 * neither.
 */
function enforceContract(app: FastifyInstance): FastifyInstance {
  const inject = app.inject.bind(app)
  let contract: Contract | undefined
  const check = (response: LightMyRequestResponse) => {
    contract ??= contractFor(app.swagger())
    const request = response.raw.req as InjectedRequest
    const payload = request._lightMyRequest?.payload
    checkExchange(contract, {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      requestHeaders: request.headers,
      requestBody: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined,
      status: response.statusCode,
      responseHeaders: response.headers,
      responseBody: response.body,
    })
  }
  function contractCheckedInject(options?: unknown, callback?: unknown): unknown {
    if (options === undefined || callback !== undefined)
      return (inject as (...args: unknown[]) => unknown)(options, callback)
    return inject(options as never).then((response) => {
      check(response)
      return response
    })
  }
  app.inject = contractCheckedInject as typeof app.inject
  return app
}

export interface PeerInstance {
  app: FastifyInstance
  deps: Deps
  logs: string[]
  close(): Promise<void>
}

/**
 * A second application instance on the same database and secrets as `t` — what a second server
 * process behind a load balancer is — optionally with other settings.
 */
export async function startPeerInstance(
  t: TestContext,
  env: Record<string, string> = {},
): Promise<PeerInstance> {
  return startInstance({ ...t.env, ...env }, t.clock)
}

/** An application on exactly this environment (nothing added), e.g. with secrets from DATA_DIR. */
export async function startInstance(
  env: Record<string, string>,
  clock: Clock = new TestClock(),
): Promise<PeerInstance> {
  const config = parseConfig(env)
  const logs: string[] = []
  const deps = createDeps(config, {
    clock,
    logger: createLogger(config, { write: (line: string) => void logs.push(line) }),
  })
  const app = enforceContract(await buildApp(deps))
  await app.ready()
  return {
    app,
    deps,
    logs,
    async close() {
      await app.close()
      await deps.close()
    },
  }
}
