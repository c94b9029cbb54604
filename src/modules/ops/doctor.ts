/**
 * `switchboard doctor`: whether this instance's configuration is sound, checked the way the service
 * would see it — the environment through parseConfig, the data directory and secrets file with
 * their modes, the database (reachable, migrated, file modes), Redis and SMTP when configured
 * (SMTP: connection, TLS and authentication as sending would do them, without sending), and
 * PUBLIC_URL against TRUST_PROXY and the cookies' Secure attribute. One result per check: ok, warn
 * (works, but fix it before production) or fail (the service will not work as intended), each
 * with what to do. It creates nothing and migrates nothing; opening an existing SQLite database
 * narrows its files to 0600 as the service does at start, after their modes were reported.
 */
import dns from 'node:dns/promises'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import type IoRedis from 'ioredis'
import { sql } from 'kysely'
import { ConfigError, parseConfig, type Config } from '../../config.js'
import { createDatabase, type DatabaseHandle } from '../../db/client.js'
import { migrationState } from '../../db/migrate.js'
import { createDeps } from '../../deps.js'
import { createLogger } from '../../logger.js'
import { MailDeliveryError } from '../mail/mailer.js'
import { verifyMailSetup } from '../mail/service.js'
import { migratedSchemaObjects, unknownObjects } from './schema-objects.js'

const require = createRequire(import.meta.url)

export type CheckStatus = 'ok' | 'warn' | 'fail'

export interface CheckResult {
  check: string
  status: CheckStatus
  /** What was found and, unless ok, what to do. */
  message: string
}

export interface DoctorOptions {
  /** How long a network check may take. */
  timeoutMs?: number
}

const ok = (check: string, message: string): CheckResult => ({ check, status: 'ok', message })
const warn = (check: string, message: string): CheckResult => ({ check, status: 'warn', message })
const fail = (check: string, message: string): CheckResult => ({ check, status: 'fail', message })

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export function checkDataDirectory(config: Config): CheckResult {
  const name = 'data directory'
  let stat: fs.Stats
  try {
    stat = fs.statSync(config.dataDir)
  } catch {
    return warn(
      name,
      `${config.dataDir} does not exist yet; the service creates it (mode 0700) on first start`,
    )
  }
  if (!stat.isDirectory())
    return fail(name, `${config.dataDir} is not a directory; point DATA_DIR at a directory`)
  try {
    fs.accessSync(config.dataDir, fs.constants.W_OK | fs.constants.X_OK)
  } catch {
    return fail(
      name,
      `${config.dataDir} is not writable by this user; chown it to the user the service runs as`,
    )
  }
  if ((stat.mode & 0o077) !== 0)
    return warn(
      name,
      `${config.dataDir} has mode ${octal(stat.mode)}; run chmod 700 on it (it holds the keys)`,
    )
  return ok(name, `${config.dataDir}, mode ${octal(stat.mode)}`)
}

/**
 * Where the secrets come from; `readable` says whether the SMTP check may load them without
 * creating the file.
 */
export function checkSecrets(config: Config): { result: CheckResult; readable: boolean } {
  const name = 'secrets'
  if (config.jwtSecret !== undefined && config.encryptionKey !== undefined) {
    return {
      result: ok(
        name,
        'JWT_SECRET and ENCRYPTION_KEY come from the environment; keep them with your backups',
      ),
      readable: true,
    }
  }
  const file = path.join(config.dataDir, 'secrets.json')
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    return {
      result: warn(
        name,
        `${file} does not exist yet; the service generates it on first start: back it up with the database (or set JWT_SECRET and ENCRYPTION_KEY)`,
      ),
      readable: false,
    }
  }
  if ((stat.mode & 0o077) !== 0) {
    return {
      result: fail(
        name,
        `${file} has mode ${octal(stat.mode)}: others may read the keys; run chmod 600 on it`,
      ),
      readable: false,
    }
  }
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      jwt_secret?: unknown
      encryption_key?: unknown
    }
    if (
      typeof value.jwt_secret !== 'string' ||
      value.jwt_secret.length < 32 ||
      !/^[0-9a-f]{64}$/i.test(String(value.encryption_key))
    ) {
      throw new Error('shape')
    }
  } catch {
    return {
      result: fail(
        name,
        `${file} is not a valid secrets file; restore it from a backup (without it encrypted settings cannot be read)`,
      ),
      readable: false,
    }
  }
  return {
    result: ok(name, `${file}, mode ${octal(stat.mode)}; keep it with your backups`),
    readable: true,
  }
}

/** The SQLite files' modes; the service narrows them at start, so a wider mode is a warning. */
export function checkDatabaseFiles(config: Config): CheckResult | null {
  const file = config.database.sqlitePath
  if (config.database.kind !== 'sqlite' || file === undefined || file === ':memory:') return null
  const wide: string[] = []
  for (const candidate of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      const { mode } = fs.statSync(candidate)
      if ((mode & 0o077) !== 0) wide.push(`${path.basename(candidate)} ${octal(mode)}`)
    } catch {
      // Not there: nothing to narrow.
    }
  }
  if (wide.length > 0)
    return warn(
      'database files',
      `${wide.join(', ')}: others may read password hashes; run chmod 600 on them (the service also narrows them at start)`,
    )
  return ok('database files', `${path.dirname(file)}: database files are 0600`)
}

function describeDatabase(config: Config): string {
  if (config.database.kind === 'sqlite') return `SQLite ${config.database.sqlitePath}`
  const url = new URL(config.database.url)
  return `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}`
}

/** Reachable and migrated; returns the open handle for the SMTP check when the database answers. */
export async function checkDatabase(
  config: Config,
  timeoutMs: number,
): Promise<{ results: CheckResult[]; handle: DatabaseHandle | null }> {
  const where = describeDatabase(config)
  if (
    config.database.kind === 'sqlite' &&
    config.database.sqlitePath !== ':memory:' &&
    !fs.existsSync(config.database.sqlitePath!)
  ) {
    return {
      results: [
        warn(
          'database',
          `${where} does not exist yet; the service creates and migrates it on first start`,
        ),
      ],
      handle: null,
    }
  }
  const handle = createDatabase(config.database, { warn: () => undefined })
  try {
    await within(handle.ping(), timeoutMs, 'the database')
  } catch (error) {
    await handle.close().catch(() => undefined)
    return {
      results: [
        fail(
          'database',
          `${where} is not reachable: ${(error as Error).message}; check DATABASE_URL and that the server runs`,
        ),
      ],
      handle: null,
    }
  }
  const results = [ok('database', `${where} answers`)]
  const state = await migrationState(handle)
  if (state.unknown.length > 0) {
    results.push(
      fail(
        'migrations',
        `the database was migrated by a newer version (${state.unknown.join(', ')}); run that version, or restore the backup taken before the upgrade`,
      ),
    )
  } else if (state.applied.length === 0) {
    results.push(
      warn(
        'migrations',
        'the database is empty; the service (or switchboard migrate) migrates it at start',
      ),
    )
  } else if (state.pending.length > 0) {
    results.push(
      warn(
        'migrations',
        `${state.pending.length} pending (${state.pending.join(', ')}); the service applies them at start, or run switchboard migrate`,
      ),
    )
  } else {
    results.push(ok('migrations', `all ${state.applied.length} applied`))
  }
  if (state.unknown.length === 0) results.push(await checkTriggers(handle, state.applied))
  return { results, handle }
}

/**
 * Triggers no migration creates: one runs with every write to its table and leaves no audit event
 * (a planted one could make a person an administrator at her next sign-in).
 */
async function checkTriggers(handle: DatabaseHandle, applied: string[]): Promise<CheckResult> {
  const found =
    handle.engine === 'postgres'
      ? await sql<{ type: string; name: string }>`select 'trigger' as type, t.tgname as name
          from pg_trigger t join pg_class c on c.oid = t.tgrelid
          join pg_namespace n on n.oid = c.relnamespace
          where not t.tgisinternal and n.nspname = current_schema()`.execute(handle.db)
      : await sql<{ type: string; name: string }>`select type, name from sqlite_master
          where type = 'trigger'`.execute(handle.db)
  const unknown = unknownObjects(found.rows, await migratedSchemaObjects(applied))
  if (unknown.length === 0) return ok('triggers', 'none beyond those the migrations create')
  return fail(
    'triggers',
    `${unknown.join(', ')} — no migration creates ${unknown.length === 1 ? 'it' : 'them'}; ` +
      'a trigger acts on every write without an audit event: find out who made it, then drop it',
  )
}

export async function checkRedis(config: Config, timeoutMs: number): Promise<CheckResult> {
  if (config.redisUrl === undefined) {
    return config.database.kind === 'postgres'
      ? warn(
          'redis',
          'not set: attempt budgets and rate limits are counted per instance; with several instances set REDIS_URL',
        )
      : ok('redis', 'not set (one instance on SQLite counts budgets and rate limits in memory)')
  }
  const url = new URL(config.redisUrl)
  const where = `${url.hostname}:${url.port || '6379'}`
  const { Redis } = require('ioredis') as typeof IoRedis
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
  })
  redis.on('error', () => undefined)
  try {
    await within(
      redis.connect().then(() => redis.ping()),
      timeoutMs,
      'Redis',
    )
    return ok('redis', `${where} answers`)
  } catch (error) {
    const code = (error as { code?: string }).code
    return fail(
      'redis',
      `${where} is not reachable (${code ?? (error as Error).message}); check REDIS_URL and that Redis runs`,
    )
  } finally {
    redis.disconnect()
  }
}

export async function checkSmtp(
  config: Config,
  handle: DatabaseHandle | null,
  secretsReadable: boolean,
): Promise<CheckResult> {
  if (handle === null)
    return warn(
      'smtp',
      'not checked: the database is not available (SMTP is configured in the admin settings stored there)',
    )
  if (!secretsReadable)
    return warn(
      'smtp',
      'not checked: the secrets that decrypt the SMTP password are not available (see "secrets")',
    )
  let deps: ReturnType<typeof createDeps>
  try {
    deps = createDeps(config, { database: handle, logger: createLogger({ logLevel: 'silent' }) })
  } catch (error) {
    // The secrets file cannot be read or made (the audit signing key lives there unless
    // AUDIT_SIGNING_KEY is set).
    return warn(
      'smtp',
      `not checked: the service's secrets cannot be loaded (${(error as Error).message}); see "secrets" and "data directory"`,
    )
  }
  try {
    const verified = await verifyMailSetup(deps)
    if (verified === null)
      return ok('smtp', 'not configured (the console shows mail-dependent features as unavailable)')
    return ok(
      'smtp',
      `${verified.host}:${verified.port} accepted the connection (${verified.tls}${verified.authenticated ? ', authenticated' : ''}); nothing was sent`,
    )
  } catch (error) {
    if (error instanceof MailDeliveryError)
      return fail(
        'smtp',
        `${error.message} Check the SMTP settings in the console (Administration → Settings)`,
      )
    return fail('smtp', `the SMTP settings cannot be read: ${(error as Error).message}`)
  } finally {
    deps.redis?.disconnect()
  }
}

function isLocalHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.')
}

/** PUBLIC_URL against the cookies' Secure attribute, and against TRUST_PROXY. */
export function checkPublicUrl(
  config: Config,
  env: Record<string, string | undefined>,
): CheckResult[] {
  const url = new URL(config.publicUrl)
  const results: CheckResult[] = []
  if (env.PUBLIC_URL === undefined || env.PUBLIC_URL.trim() === '') {
    results.push(
      warn(
        'public url',
        `not set, so ${config.publicUrl} is assumed (mails, passkeys and sign-in redirects use it); set PUBLIC_URL to the https address users reach`,
      ),
    )
  } else if (config.secureCookies) {
    results.push(ok('public url', `${config.publicUrl}: cookies are sent with Secure`))
  } else if (isLocalHost(url.hostname)) {
    results.push(
      ok(
        'public url',
        `${config.publicUrl}: reachable from this machine only; cookies without Secure`,
      ),
    )
  } else {
    results.push(
      warn(
        'public url',
        `${config.publicUrl} is http: cookies go without Secure and passwords in clear; serve it over https (reverse proxy) and set an https PUBLIC_URL`,
      ),
    )
  }
  const trust = config.trustProxy
  if (trust === false) {
    results.push(
      config.secureCookies && !isLocalHost(url.hostname)
        ? warn(
            'trust proxy',
            "PUBLIC_URL is https but TRUST_PROXY=false: behind a TLS proxy every client gets the proxy's address (rate limits, audit log); set TRUST_PROXY to 1 or the proxy's address",
          )
        : ok('trust proxy', "false: the client address is the connection's (no reverse proxy)"),
    )
  } else {
    results.push(
      ok(
        'trust proxy',
        `${trust}: the client address and protocol come from X-Forwarded-For / X-Forwarded-Proto set by that proxy`,
      ),
    )
  }
  return results
}

/**
 * Each GO_HOSTS name must resolve on this machine, as it must on the users' (a single-label `go`
 * through the DNS search domain, README "The short go host").
 */
export async function checkGoHosts(
  config: Config,
  timeoutMs: number,
  lookup: (name: string) => Promise<unknown> = (name) => dns.lookup(name),
): Promise<CheckResult[]> {
  return Promise.all(
    config.goHosts.map(async (name) => {
      try {
        await within(Promise.resolve(lookup(name)), timeoutMs, `the name ${name}`)
        return ok('go host', `${name} resolves: http://${name}/<slug> reaches this instance`)
      } catch {
        return warn(
          'go host',
          `${name} does not resolve here: add a DNS record for it (for a single-label name, in ` +
            'the search domain the machines use) pointing at this instance or its proxy',
        )
      }
    }),
  )
}

/** Every check, in the order an operator fixes them. */
export async function runDoctor(
  env: Record<string, string | undefined>,
  options: DoctorOptions = {},
): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? 5000
  let config: Config
  try {
    config = parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError)
      return [
        fail(
          'configuration',
          `${error.problems.join('; ')}; fix these variables (nothing else was checked)`,
        ),
      ]
    throw error
  }
  const results: CheckResult[] = [
    ok('configuration', 'the environment parses as the service would read it'),
  ]
  results.push(checkDataDirectory(config))
  const secrets = checkSecrets(config)
  results.push(secrets.result)
  const files = checkDatabaseFiles(config)
  if (files !== null) results.push(files)
  const database = await checkDatabase(config, timeoutMs)
  results.push(...database.results)
  try {
    results.push(await checkRedis(config, timeoutMs))
    results.push(await checkSmtp(config, database.handle, secrets.readable))
  } finally {
    await database.handle?.close()
  }
  results.push(...checkPublicUrl(config, env))
  results.push(...(await checkGoHosts(config, timeoutMs)))
  return results
}

/** One line per check: `ok   check: message`. */
export function formatResults(results: CheckResult[]): string {
  return results.map((r) => `${r.status.padEnd(4)} ${r.check}: ${r.message}\n`).join('')
}
