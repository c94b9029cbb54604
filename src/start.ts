/**
 * The only file that listens: parse the configuration, migrate, build the app, listen, and shut
 * down gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close pools).
 * Loaded by server.ts once the Node version is known to be supported.
 */
import type { Server } from 'node:http'
import { getHeapStatistics } from 'node:v8'
import { buildApp } from './app.js'
import { ConfigError, parseConfig } from './config.js'
import { migrateToLatest } from './db/migrate.js'
import { createDeps } from './deps.js'
import { memoryReducingCollection } from './lib/heap-release.js'
import { collectWhenIdle } from './lib/idle-collection.js'
import { announceSetupCode } from './modules/auth/setup-code.js'
import { claimInstance } from './modules/ops/instance-lock.js'

async function main(): Promise<void> {
  let config
  try {
    config = parseConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`switchboard: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }

  // `switchboard restore` refuses to replace a database this process has open
  // (claimed before the database is opened, so a restore cannot slip in while it migrates).
  const { sqlitePath } = config.database
  const releaseInstance =
    sqlitePath !== undefined && sqlitePath !== ':memory:'
      ? claimInstance(sqlitePath)
      : () => undefined
  const deps = createDeps(config)
  const { applied } = await migrateToLatest(deps.database)
  if (applied.length > 0) deps.logger.info({ migrations: applied }, 'database migrated')
  if (deps.secrets.file !== null)
    deps.logger.info({ file: deps.secrets.file }, 'using server secrets from the data directory')
  // Keys in the environment are how several instances share a PostgreSQL database; the audit
  // log's signing key must be shared too, or only the first instance's checkpoints are signed.
  if (
    config.database.kind === 'postgres' &&
    config.jwtSecret !== undefined &&
    config.encryptionKey !== undefined &&
    config.auditSigningKey === undefined
  ) {
    deps.logger.warn(
      { file: deps.secrets.file },
      'AUDIT_SIGNING_KEY is not set: this instance signs audit checkpoints with the key generated into its data directory; instances that share this database must share one key (set AUDIT_SIGNING_KEY on each)',
    )
  }

  const app = await buildApp(deps)
  await app.ready()
  // Start-up garbage (the bundle's top-level code, migrations, route and schema compilation) would
  // stay until the heap grows enough for V8 to collect it, which an idle service never does: one
  // memory-reducing collection before listening returns it. `gc` is there when the process runs
  // with the settings of process-settings.ts.
  memoryReducingCollection()?.()
  await app.listen({ port: config.port, host: config.host })
  const stopIdleCollection = collectIdleGarbage(app.server)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down')
    const deadline = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    deadline.unref()
    stopIdleCollection()
    await app.close()
    await deps.close()
    releaseInstance()
    clearTimeout(deadline)
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
  // After the handlers: a SIGTERM that arrives while the database is asked must still stop
  // gracefully.
  await announceSetupCode(deps, process.stderr)
}

/**
 * The same collection again when the server first goes quiet after listening, and whenever it goes
 * quiet after work that grew the heap by 2 MiB or more (lib/idle-collection.ts), at most once a
 * minute. Quiet means no request for 0.3 s, so a request rarely arrives during the pause
 * (50–130 ms of CPU, docs/decisions/0059-idle-memory.md).
 */
function collectIdleGarbage(server: Server): () => void {
  const collect = memoryReducingCollection()
  if (collect === undefined) return () => undefined
  return collectWhenIdle(server, {
    quietMs: 300,
    minGrowthBytes: 2 * 1024 * 1024,
    minIntervalMs: 60_000,
    collectAtFirstQuiet: true,
    heapSize: () => getHeapStatistics().total_heap_size,
    collect,
  })
}

main().catch((error: Error) => {
  process.stderr.write(`switchboard: failed to start: ${error.message}\n`)
  process.exit(1)
})
