/**
 * Configuration: the only place that reads the environment. parseConfig() validates everything at
 * once and reports every problem with a hint, so an operator fixes a broken deployment in one pass.
 * The schema doubles as the documentation: docs/configuration.md is checked against it.
 */
import path from 'node:path'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isSigningKey } from './lib/signed-note.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

function env<T extends TSchema>(schema: T, hint: string): T {
  return { ...schema, hint }
}

export const EnvSchema = Type.Object({
  PORT: env(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }), 'a TCP port, e.g. 8080'),
  HOST: env(
    Type.String({ minLength: 1, default: '0.0.0.0' }),
    'an interface address, e.g. 0.0.0.0 or 127.0.0.1',
  ),
  PUBLIC_URL: env(
    Type.Optional(Type.String()),
    'the absolute http(s) URL users reach the service at, e.g. https://sb.example.com',
  ),
  DATA_DIR: env(
    Type.String({ minLength: 1, default: './data' }),
    'a writable directory for the SQLite database and generated keys',
  ),
  DATABASE_URL: env(
    Type.Optional(Type.String()),
    'sqlite:<path> or postgres://user:password@host:5432/database',
  ),
  DATABASE_POOL_SIZE: env(
    Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
    'PostgreSQL connections per instance, 1–200',
  ),
  POSTGRES_HOT_READS: env(
    Type.Union([Type.Literal('pipelined'), Type.Literal('pool')], { default: 'pipelined' }),
    "pipelined (two pipelined connections with their own row reading) or pool (pg's pool alone)",
  ),
  POSTGRES_AUDIT_COMMIT: env(
    Type.Union([Type.Literal('grouped'), Type.Literal('plain')], { default: 'grouped' }),
    'grouped (audited commits release the tree head before the WAL flush) or plain (a plain COMMIT)',
  ),
  SQLITE_READ_CACHE: env(
    Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
    'on (hot reads kept until the database changes) or off (every read asks SQLite)',
  ),
  // Read by server.ts before anything else (process-settings.ts); declared here so that it is
  // documented with the rest and a value other than on or off is refused.
  PROCESS_TUNING: env(
    Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
    'on (restart with the V8 flags and malloc settings of process-settings.ts) or off (plain node)',
  ),
  REDIS_URL: env(Type.Optional(Type.String()), 'redis://host:6379 or rediss://…'),
  JWT_SECRET: env(
    Type.Optional(Type.String({ minLength: 32 })),
    'any string of at least 32 characters, e.g. the output of `openssl rand -base64 48`',
  ),
  ENCRYPTION_KEY: env(
    Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
    '32 bytes as 64 hex characters, e.g. the output of `openssl rand -hex 32`',
  ),
  AUDIT_SIGNING_KEY: env(
    Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/=]{40,200}$' })),
    'an Ed25519 private key as base64 PKCS #8 DER, e.g. `openssl genpkey -algorithm ed25519 -outform DER | base64 -w0`',
  ),
  SESSION_TTL: env(
    Type.String({ pattern: '^[1-9][0-9]*[smhd]$', default: '7d' }),
    'a duration such as 30m, 12h or 7d',
  ),
  SESSION_IDLE_TIMEOUT: env(
    Type.String({ pattern: '^[1-9][0-9]*[smhd]$', default: '12h' }),
    'a duration of inactivity after which a session ends, such as 30m or 12h',
  ),
  TRUST_PROXY: env(
    Type.String({ default: 'false' }),
    'false, a hop count such as 1 (one reverse proxy in front), or comma-separated proxy addresses/CIDRs such as 127.0.0.1 or 10.0.0.0/8',
  ),
  LOG_LEVEL: env(
    Type.Union(
      LOG_LEVELS.map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    LOG_LEVELS.join(', '),
  ),
  PASSWORD_HASH_MEMORY_KIB: env(
    Type.Integer({ minimum: 1024, maximum: 1048576, default: 19456 }),
    'argon2id memory in KiB; 19456 (19 MiB) is the OWASP minimum',
  ),
  PASSWORD_HASH_ITERATIONS: env(
    Type.Integer({ minimum: 1, maximum: 20, default: 2 }),
    'argon2id passes; 2 is the OWASP minimum at 19 MiB',
  ),
  PASSWORD_HASH_CONCURRENCY: env(
    Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
    'argon2 hashes run at once per process (about one per core)',
  ),
  PASSWORD_HASH_QUEUE: env(
    Type.Integer({ minimum: 0, maximum: 10000, default: 32 }),
    'argon2 hashes that may wait for a place; beyond that 503 with Retry-After',
  ),
  MAIL_HOURLY_LIMIT: env(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 200 }),
    "mails per hour the instance sends on users' request (invitations, their resends, email-change links), e.g. 200",
  ),
  MFA_ISSUER: env(
    Type.String({ minLength: 1, maxLength: 64, default: 'Switchboard' }),
    'the name authenticator apps show, e.g. "Acme Switchboard"',
  ),
  RATE_LIMIT_GENERAL: env(
    Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1000 }),
    'requests per minute per credential (or IP); 0 switches the general limit off',
  ),
  SCIM_RATE_LIMIT: env(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1200 }),
    'SCIM requests per minute per SCIM credential (identity providers import in bursts)',
  ),
  GO_HOSTS: env(
    Type.String({ default: '' }),
    'comma-separated short host names that answer go-links, e.g. go,go.corp.example',
  ),
  METRICS_PORT: env(
    Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    'a TCP port for a metrics listener bound to 127.0.0.1 (GET /metrics), e.g. 9464',
  ),
  METRICS_TOKEN: env(
    Type.Optional(Type.String({ minLength: 16 })),
    'a bearer secret of at least 16 characters that /api/metrics then requires',
  ),
  REQUEST_TIMEOUT_SECONDS: env(
    Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
    'seconds a request (headers and body) may take to arrive',
  ),
  HEADERS_TIMEOUT_SECONDS: env(
    Type.Integer({ minimum: 1, maximum: 600, default: 10 }),
    'seconds the request headers may take to arrive',
  ),
  KEEP_ALIVE_TIMEOUT_SECONDS: env(
    Type.Integer({ minimum: 1, maximum: 600, default: 5 }),
    'seconds an idle keep-alive connection stays open',
  ),
  FAILED_LOGIN_RETENTION_DAYS: env(
    Type.Integer({ minimum: 1, maximum: 3650, default: 90 }),
    'days failed sign-in audit events are kept',
  ),
  SHUTDOWN_TIMEOUT_SECONDS: env(
    Type.Integer({ minimum: 1, maximum: 600, default: 10 }),
    'seconds to let in-flight requests finish on SIGTERM',
  ),
  STRIPE_SECRET_KEY: env(
    Type.Optional(Type.String({ pattern: '^(sk|rk)_[A-Za-z0-9_]{8,}$' })),
    'a Stripe secret key (sk_live_…, sk_test_…) or restricted key (rk_…)',
  ),
  STRIPE_WEBHOOK_SECRET: env(
    Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9+/=_-]{8,}$' })),
    "the webhook endpoint's signing secret from the Stripe dashboard, whsec_…",
  ),
  STRIPE_API_BASE: env(
    Type.Optional(Type.String()),
    'an http(s) origin without a path, e.g. http://127.0.0.1:12111 for a local stand-in; unset for api.stripe.com',
  ),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: env(
    Type.Boolean({ default: false }),
    'true lets admin-configured servers (SMTP, AI, OIDC) be on private networks or loopback; link-local and metadata addresses stay refused',
  ),
  BILLING_PLANS: env(
    Type.Optional(Type.String()),
    'a JSON array such as [{"id":"pro","name":"Pro","prices":{"month":"price_…","year":"price_…"}}]',
  ),
})

export type Env = Static<typeof EnvSchema>

export const BILLING_INTERVALS = ['month', 'year'] as const
export type BillingInterval = (typeof BILLING_INTERVALS)[number]

/** A plan of BILLING_PLANS: its id is what organizations.plan holds while it is subscribed. */
export interface BillingPlan {
  id: string
  name: string
  /** The Stripe price for each interval the plan is sold in. */
  prices: Partial<Record<BillingInterval, string>>
}

const PlanSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    prices: Type.Object(
      Object.fromEntries(
        BILLING_INTERVALS.map((interval) => [
          interval,
          Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$' })),
        ]),
      ),
      { additionalProperties: false, minProperties: 1 },
    ),
  },
  { additionalProperties: false },
)
const PlansSchema = Type.Array(PlanSchema, { maxItems: 50 })

export interface BillingConfig {
  stripeSecretKey?: string
  stripeWebhookSecret?: string
  /** Where the Stripe client connects instead of api.stripe.com (STRIPE_API_BASE). */
  stripeApi?: { host: string; port: number; protocol: 'http' | 'https' }
  plans: readonly BillingPlan[]
}

export interface DatabaseConfig {
  kind: 'sqlite' | 'postgres'
  /** The connection string for PostgreSQL; for SQLite the file path (or ':memory:'). */
  url: string
  sqlitePath?: string
  poolSize: number
  /**
   * PostgreSQL: how the per-request hot reads travel. `pipelined`: on connections of their own in
   * pg's pipeline mode, read by db/drivers/ (which relies on pg internals); `pool`: through pg's
   * pool and its own row handling, with PostgreSQL's own plan choices.
   */
  hotReads: 'pipelined' | 'pool'
  /**
   * PostgreSQL: how an audited transaction commits. `grouped`: its COMMIT releases the audit tree
   * head before the WAL flush, and a flush of its own follows (db/flush-after-commit.ts); `plain`:
   * a synchronous COMMIT that holds the head through the flush, and nothing after it.
   */
  auditCommit: 'grouped' | 'plain'
  /**
   * SQLite: whether hot reads are kept until the database changes (db/sqlite.ts ReadCache, which
   * notices other connections' commits in the WAL-index, db/drivers/sqlite-wal-index.ts).
   */
  readCache: boolean
}

export interface Config {
  port: number
  host: string
  publicUrl: string
  /** Cookies get the Secure attribute when users reach the service over https. */
  secureCookies: boolean
  dataDir: string
  database: DatabaseConfig
  redisUrl?: string
  jwtSecret?: string
  encryptionKey?: Buffer
  /** The audit log's checkpoint signing key (base64 PKCS #8); else generated into secrets.json. */
  auditSigningKey?: string
  sessionTtlSeconds: number
  /** false (no proxy), a hop count, or the proxies' addresses/CIDRs; never `true`. */
  trustProxy: false | number | string
  logLevel: (typeof LOG_LEVELS)[number]
  passwordHash: { memoryCost: number; timeCost: number; parallelism: number }
  /** The process-wide bound on argon2 work. */
  passwordHashLimits: { concurrency: number; queue: number }
  /** A session ends after this long without a request, besides its absolute lifetime. */
  sessionIdleSeconds: number
  /** Node's requestTimeout / headersTimeout / keepAliveTimeout, in milliseconds. */
  httpTimeouts: { requestMs: number; headersMs: number; keepAliveMs: number }
  /** When set, metrics are served on 127.0.0.1 at this port (and not on the public port). */
  metricsPort?: number
  /** Days failed sign-in audit events are kept before the periodic purge removes them. */
  failedLoginRetentionDays: number
  shutdownTimeoutMs: number
  /** When set, GET /api/metrics requires it as a Bearer credential. */
  metricsToken?: string
  /** Mails per hour the instance sends on users' request, across all of them. */
  mailHourlyLimit: number
  /** The issuer name in TOTP key URIs, shown by authenticator apps. */
  mfaIssuer: string
  /**
   * Requests per minute per credential (else IP) for routes without a limit of their own; 0 = off.
   */
  rateLimitGeneral: number
  /** SCIM requests per minute per SCIM credential. */
  scimRateLimit: number
  /** Stripe and the plans sold through it (docs/API.md#billing). */
  billing: BillingConfig
  /** Where admin-configured servers may be: private ranges and loopback only when true. */
  outbound: { allowPrivateNetworks: boolean }
  /**
   * Short host names (lower case, no port) answered with a redirect into `/go/` and nothing else
   * (docs/API.md#the-short-go-host).
   */
  goHosts: readonly string[]
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 }

function parseDuration(text: string): number {
  return Number(text.slice(0, -1)) * (DURATION_UNITS[text.slice(-1)] ?? 1)
}

/**
 * `true` would believe every client's X-Forwarded-For: any client could pick its own address and
 * step out of every per-IP limit and the audit log. It is refused, with the two settings that name
 * the proxy instead. A hop count of 0 trusts nobody: the same as false.
 */
function parseTrustProxy(text: string, problems: string[]): false | number | string {
  const value = text.trim().toLowerCase()
  if (value === 'false' || value === '' || /^0+$/.test(value)) return false
  if (value === 'true') {
    problems.push(
      "TRUST_PROXY: true is not accepted: it would believe any client's X-Forwarded-For, so a client could choose its own IP " +
        "and escape every per-IP limit. Set the hop count instead (TRUST_PROXY=1 behind one reverse proxy) or the proxy's " +
        'addresses/CIDRs (e.g. TRUST_PROXY=127.0.0.1 for a proxy on the same host, or 10.0.0.0/8)',
    )
    return false
  }
  if (/^\d+$/.test(value)) return Number(value)
  return text.trim()
}

function pickDefined(source: Record<string, string | undefined>): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key]
    // An empty variable counts as unset, as container tooling often exports FOO= for "no value".
    if (value !== undefined && value.trim() !== '') picked[key] = value.trim()
  }
  return picked
}

type DatabaseSwitches = Pick<DatabaseConfig, 'hotReads' | 'auditCommit' | 'readCache'>

function parseDatabase(
  url: string | undefined,
  dataDir: string,
  poolSize: number,
  problems: string[],
  switches: DatabaseSwitches,
): DatabaseConfig {
  const value = url ?? `sqlite:${path.join(dataDir, 'switchboard.db')}`
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    if (file === '')
      problems.push(
        'DATABASE_URL: the sqlite: URL names no file. Expected sqlite:<path>, e.g. sqlite:./data/switchboard.db',
      )
    const sqlitePath = file === ':memory:' ? file : path.resolve(file)
    return { kind: 'sqlite', url: sqlitePath, sqlitePath, poolSize: 1, ...switches }
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value)
    } catch {
      problems.push(
        'DATABASE_URL: not a valid URL. Expected postgres://user:password@host:5432/database',
      )
    }
    return { kind: 'postgres', url: value, poolSize, ...switches }
  }
  problems.push(
    'DATABASE_URL: unsupported scheme. Expected sqlite:<path> or postgres://user:password@host:5432/database',
  )
  return { kind: 'sqlite', url: value, poolSize: 1, ...switches }
}

function parsePublicUrl(value: string | undefined, port: number, problems: string[]): string {
  const text = value ?? `http://localhost:${port}`
  try {
    const url = new URL(text)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme')
    return url.origin + url.pathname.replace(/\/+$/, '')
  } catch {
    problems.push(
      `PUBLIC_URL: not an absolute http(s) URL. Expected ${EnvSchema.properties.PUBLIC_URL.hint}`,
    )
    return text
  }
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/

/**
 * GO_HOSTS: host names only (no scheme, port or path). The service's own host cannot be one: it
 * would answer every page and API request with a go-link redirect.
 */
function parseGoHosts(text: string, publicUrl: string, problems: string[]): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
  const own = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : ''
  for (const name of names) {
    if (!HOST_NAME.test(name))
      problems.push(
        `GO_HOSTS: "${name}" is not a host name. Expected names such as go,go.corp.example`,
      )
    else if (name === own)
      problems.push(
        `GO_HOSTS: "${name}" is PUBLIC_URL's own host; a short host must be another name`,
      )
  }
  return [...new Set(names)]
}

function parseStripeApiBase(
  value: string | undefined,
  problems: string[],
): BillingConfig['stripeApi'] {
  if (value === undefined) return undefined
  try {
    const url = new URL(value)
    const protocol = url.protocol.slice(0, -1)
    if (
      (protocol !== 'http' && protocol !== 'https') ||
      url.username !== '' ||
      url.password !== '' ||
      url.pathname !== '/' ||
      url.search !== '' ||
      url.hash !== ''
    ) {
      throw new Error('shape')
    }
    return {
      host: url.hostname,
      port: Number(url.port || (protocol === 'https' ? 443 : 80)),
      protocol,
    }
  } catch {
    problems.push(
      `STRIPE_API_BASE: not an http(s) origin. Expected ${EnvSchema.properties.STRIPE_API_BASE.hint}`,
    )
    return undefined
  }
}

/**
 * The plans, each problem named by its place in the array (a price id is not a secret, but a line
 * is no place for it).
 */
function parseBillingPlans(text: string | undefined, problems: string[]): BillingPlan[] {
  if (text === undefined) return []
  const hint = `Expected ${EnvSchema.properties.BILLING_PLANS.hint}`
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    problems.push(`BILLING_PLANS: not valid JSON. ${hint}`)
    return []
  }
  const errors = [...Value.Errors(PlansSchema, value)].map(
    (error) =>
      `BILLING_PLANS: ${error.path === '' ? '' : `at ${error.path}: `}${error.message}. ${hint}`,
  )
  if (errors.length > 0) {
    problems.push(...dedupe(errors))
    return []
  }
  const plans = value as BillingPlan[]
  const ids = plans.map((plan) => plan.id)
  const prices = plans.flatMap((plan) => Object.values(plan.prices))
  // `free` is what an organization has without a subscription.
  if (ids.includes('free'))
    problems.push(
      `BILLING_PLANS: the plan id "free" is reserved for organizations without a subscription. ${hint}`,
    )
  if (new Set(ids).size !== ids.length)
    problems.push(`BILLING_PLANS: plan ids must be unique. ${hint}`)
  // Subscription events name a price; it must lead back to one plan.
  if (new Set(prices).size !== prices.length)
    problems.push(`BILLING_PLANS: a price may belong to one plan and interval only. ${hint}`)
  return plans.map((plan) => ({ id: plan.id, name: plan.name, prices: { ...plan.prices } }))
}

/**
 * Validates the environment and returns the frozen configuration, or throws ConfigError listing
 * every problem.
 */
export function parseConfig(source: Record<string, string | undefined>): Readonly<Config> {
  const raw = pickDefined(source)
  const converted = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw)) as Env
  const problems: string[] = []
  for (const error of Value.Errors(EnvSchema, converted)) {
    const key = error.path.replace(/^\//, '')
    const hint = (EnvSchema.properties as Record<string, { hint?: string }>)[key]?.hint
    // Never echo the value: it may be a secret.
    problems.push(`${key}: ${error.message.toLowerCase()}. Expected ${hint ?? 'a valid value'}`)
  }
  if (problems.length > 0) throw new ConfigError(dedupe(problems))

  const e = converted
  const dataDir = path.resolve(e.DATA_DIR)
  const database = parseDatabase(e.DATABASE_URL, dataDir, e.DATABASE_POOL_SIZE, problems, {
    hotReads: e.POSTGRES_HOT_READS,
    auditCommit: e.POSTGRES_AUDIT_COMMIT,
    readCache: e.SQLITE_READ_CACHE === 'on',
  })
  const publicUrl = parsePublicUrl(e.PUBLIC_URL, e.PORT, problems)
  if (e.REDIS_URL !== undefined && !/^rediss?:\/\/./.test(e.REDIS_URL)) {
    problems.push(`REDIS_URL: unsupported scheme. Expected ${EnvSchema.properties.REDIS_URL.hint}`)
  }
  if (e.HEADERS_TIMEOUT_SECONDS > e.REQUEST_TIMEOUT_SECONDS) {
    problems.push(
      'HEADERS_TIMEOUT_SECONDS: must not exceed REQUEST_TIMEOUT_SECONDS (the headers are part of the request)',
    )
  }
  const stripeApi = parseStripeApiBase(e.STRIPE_API_BASE, problems)
  const plans = parseBillingPlans(e.BILLING_PLANS, problems)
  const trustProxy = parseTrustProxy(e.TRUST_PROXY, problems)
  const goHosts = parseGoHosts(e.GO_HOSTS, publicUrl, problems)
  if (e.AUDIT_SIGNING_KEY !== undefined && !isSigningKey(e.AUDIT_SIGNING_KEY)) {
    problems.push(
      `AUDIT_SIGNING_KEY: not an Ed25519 private key. Expected ${EnvSchema.properties.AUDIT_SIGNING_KEY.hint}`,
    )
  }
  if (problems.length > 0) throw new ConfigError(problems)

  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    secureCookies: publicUrl.startsWith('https:'),
    dataDir,
    database,
    sessionTtlSeconds: parseDuration(e.SESSION_TTL),
    trustProxy,
    logLevel: e.LOG_LEVEL,
    passwordHash: {
      memoryCost: e.PASSWORD_HASH_MEMORY_KIB,
      timeCost: e.PASSWORD_HASH_ITERATIONS,
      parallelism: 1,
    },
    passwordHashLimits: { concurrency: e.PASSWORD_HASH_CONCURRENCY, queue: e.PASSWORD_HASH_QUEUE },
    sessionIdleSeconds: parseDuration(e.SESSION_IDLE_TIMEOUT),
    httpTimeouts: {
      requestMs: e.REQUEST_TIMEOUT_SECONDS * 1000,
      headersMs: e.HEADERS_TIMEOUT_SECONDS * 1000,
      keepAliveMs: e.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    failedLoginRetentionDays: e.FAILED_LOGIN_RETENTION_DAYS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    rateLimitGeneral: e.RATE_LIMIT_GENERAL,
    scimRateLimit: e.SCIM_RATE_LIMIT,
    mfaIssuer: e.MFA_ISSUER,
    mailHourlyLimit: e.MAIL_HOURLY_LIMIT,
    outbound: { allowPrivateNetworks: e.OUTBOUND_ALLOW_PRIVATE_NETWORKS },
    goHosts,
    billing: {
      plans,
      ...(e.STRIPE_SECRET_KEY !== undefined && { stripeSecretKey: e.STRIPE_SECRET_KEY }),
      ...(e.STRIPE_WEBHOOK_SECRET !== undefined && {
        stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
      }),
      ...(stripeApi !== undefined && { stripeApi }),
    },
    ...(e.REDIS_URL !== undefined && { redisUrl: e.REDIS_URL }),
    ...(e.JWT_SECRET !== undefined && { jwtSecret: e.JWT_SECRET }),
    ...(e.ENCRYPTION_KEY !== undefined && { encryptionKey: Buffer.from(e.ENCRYPTION_KEY, 'hex') }),
    ...(e.AUDIT_SIGNING_KEY !== undefined && { auditSigningKey: e.AUDIT_SIGNING_KEY }),
    ...(e.METRICS_TOKEN !== undefined && { metricsToken: e.METRICS_TOKEN }),
    ...(e.METRICS_PORT !== undefined && { metricsPort: e.METRICS_PORT }),
  }
  return Object.freeze(config)
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)]
}
