/**
 * Everything a service needs, built once at start-up and passed in explicitly — no module reads
 * globals, so tests build the same graph against their own database and stand-in servers.
 */
import { createRequire } from 'node:module'
import type * as IoRedis from 'ioredis'
import type { Redis } from 'ioredis'
import type { Config } from './config.js'
import { createDatabase, type DatabaseHandle } from './db/client.js'
import type { Db } from './db/schema.js'
import { createLogger, type Logger } from './logger.js'
import {
  AttemptBudgets,
  createFallbackCounterStore,
  createMemoryCounterStore,
  createRedisCounterStore,
  type CounterStore,
} from './lib/attempt-budget.js'
import { deriveKey } from './lib/crypto.js'
import { ExpiringValue } from './lib/expiring-value.js'
import {
  createHeapRelease,
  memoryReducingCollection,
  type HeapRelease,
} from './lib/heap-release.js'
import { createPasswordHasher, type PasswordHasher } from './lib/password-hash.js'
import { resolveSecrets, type Secrets } from './lib/secrets.js'
import { systemClock, type Clock } from './lib/time.js'
import { createAiClient, type AiClient, type AiModel } from './modules/ai/client.js'
import { createStripeAdapter, type StripeAdapter } from './modules/billing/stripe.js'
import { createAccessTokens, type AccessTokens } from './identity/access-tokens.js'
import { createMetrics, type Metrics } from './lib/metrics.js'
import { createMailer, smtpPolicy, type Mailer } from './modules/mail/mailer.js'
import { createOidcClient, type OidcClient } from './modules/oidc/client.js'
import { createAuditSigner } from './modules/audit/signer.js'
import type { NoteSigner } from './lib/signed-note.js'

export interface Deps {
  config: Readonly<Config>
  database: DatabaseHandle
  db: Db
  clock: Clock
  logger: Logger
  secrets: Secrets
  /** Keys derived from the secrets, one per purpose. */
  keys: { csrf: Buffer; oidcState: Buffer }
  passwords: PasswordHasher
  accessTokens: AccessTokens
  /** Shared counters (Redis or memory) behind the attempt budgets and request rate limits. */
  counters: CounterStore
  budgets: AttemptBudgets
  redis: Redis | null
  /** Outgoing mail through the SMTP server of the settings (see modules/mail/service.ts). */
  mailer: Mailer
  /** The OpenAI-compatible API of the AI settings. */
  ai: AiClient
  /** The provider's model list, kept 5 minutes per AI configuration (docs/API.md#settings). */
  aiModels: ExpiringValue<AiModel[]>
  /** OpenID Connect with the identity providers (discovery cached per provider). */
  oidc: OidcClient
  /** The Stripe API (billing); null without STRIPE_SECRET_KEY. */
  stripe: StripeAdapter | null
  /** Prometheus counters and histograms of this instance (GET /api/metrics). */
  metrics: Metrics
  /** Signs the audit log's checkpoints (C2SP signed note, Ed25519). */
  auditSigner: NoteSigner
  /** A memory-reducing collection after work that allocated far more than it keeps. */
  heap: HeapRelease
  close(): Promise<void>
}

const AI_MODELS_TTL_SECONDS = 5 * 60

// Optional integrations are loaded when configured or first used, not at start-up: the embedded
// default then never loads them (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)

export interface DepsOverrides {
  clock?: Clock
  logger?: Logger
  database?: DatabaseHandle
}

function createRedis(url: string, logger: Logger): Redis {
  const { Redis: RedisClient } = require('ioredis') as typeof IoRedis
  const redis = new RedisClient(url, {
    // Fail a command at once while disconnected instead of queueing it: callers fall back to
    // per-process state rather than holding requests open (see createFallbackCounterStore).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  })
  redis.on('error', (error: Error) =>
    logger.debug({ error: { message: error.message } }, 'redis connection error'),
  )
  return redis
}

/**
 * Resolves once Redis has connected, has failed to (the first error), or after `timeoutMs`: a
 * starting instance waits for it so that its first requests count in the shared store rather than
 * in its own memory; an unreachable Redis does not hold the start (limits fall back per process).
 */
export function redisSettled(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready' || redis.status === 'end') return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      redis.off('ready', done).off('error', done).off('end', done)
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    redis.once('ready', done).once('error', done).once('end', done)
  })
}

export function createDeps(config: Readonly<Config>, overrides: DepsOverrides = {}): Deps {
  const clock = overrides.clock ?? systemClock
  const logger = overrides.logger ?? createLogger(config)
  const secrets = resolveSecrets(config)
  const database = overrides.database ?? createDatabase(config.database, logger)
  const redis = config.redisUrl === undefined ? null : createRedis(config.redisUrl, logger)
  const memoryCounters = createMemoryCounterStore(clock)
  const counters: CounterStore =
    redis === null
      ? memoryCounters
      : createFallbackCounterStore(createRedisCounterStore(redis), memoryCounters, logger)

  return {
    config,
    database,
    db: database.db,
    clock,
    logger,
    secrets,
    keys: {
      csrf: deriveKey(secrets.jwtSecret, 'csrf'),
      oidcState: deriveKey(secrets.jwtSecret, 'oidc-state'),
    },
    passwords: createPasswordHasher(config.passwordHash, config.passwordHashLimits),
    accessTokens: createAccessTokens({
      secret: secrets.jwtSecret,
      issuer: config.publicUrl,
      clock,
    }),
    counters,
    budgets: new AttemptBudgets(counters),
    redis,
    mailer: createMailer({ policy: smtpPolicy(config.outbound) }),
    ai: createAiClient({ policy: config.outbound }),
    aiModels: new ExpiringValue(clock, AI_MODELS_TTL_SECONDS),
    oidc: createOidcClient({ clock, policy: config.outbound }),
    stripe: createStripeAdapter(config.billing),
    // The process's figures only where they can be scraped (lib/metrics.ts).
    metrics: createMetrics({
      processMetrics: config.metricsToken !== undefined || config.metricsPort !== undefined,
    }),
    auditSigner: createAuditSigner(config.publicUrl, secrets.auditSigningKey),
    heap: createHeapRelease(memoryReducingCollection()),
    async close() {
      redis?.disconnect()
      await database.close()
    },
  }
}
