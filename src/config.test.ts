import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, EnvSchema, parseConfig } from './config.js'

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('parseConfig', () => {
  it('has working defaults for a fresh machine: SQLite under ./data, port 8080', () => {
    const config = parseConfig({})
    expect(config.port).toBe(8080)
    expect(config.dataDir).toBe(path.resolve('data'))
    expect(config.database).toMatchObject({
      kind: 'sqlite',
      url: path.resolve('data/switchboard.db'),
    })
    expect(config.publicUrl).toBe('http://localhost:8080')
    expect(config.secureCookies).toBe(false)
    expect(config.sessionTtlSeconds).toBe(7 * 86400)
    expect(config.passwordHash).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 })
    expect(config.trustProxy).toBe(false)
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('reads PostgreSQL, Redis, secrets and the rest', () => {
    const config = parseConfig({
      PORT: '9000',
      PUBLIC_URL: 'https://sb.example.com/',
      DATABASE_URL: 'postgres://sb:pw@db:5432/sb',
      REDIS_URL: 'redis://cache:6379',
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: 'ab'.repeat(32),
      SESSION_TTL: '12h',
      TRUST_PROXY: '1',
    })
    expect(config.port).toBe(9000)
    expect(config.publicUrl).toBe('https://sb.example.com')
    expect(config.secureCookies).toBe(true)
    expect(config.database).toMatchObject({
      kind: 'postgres',
      url: 'postgres://sb:pw@db:5432/sb',
      poolSize: 10,
    })
    expect(config.redisUrl).toBe('redis://cache:6379')
    expect(config.encryptionKey).toEqual(Buffer.alloc(32, 0xab))
    expect(config.sessionTtlSeconds).toBe(12 * 3600)
    expect(config.trustProxy).toBe(1)
  })

  it('refuses TRUST_PROXY=true, pointing to the hop count and the proxy addresses', () => {
    for (const value of ['true', 'TRUE', ' True ']) {
      const [problem, ...others] = problemsOf({ TRUST_PROXY: value })
      expect(others).toEqual([])
      expect(problem).toMatch(/^TRUST_PROXY: true is not accepted/)
      expect(problem).toContain('TRUST_PROXY=1')
      expect(problem).toContain('TRUST_PROXY=127.0.0.1')
    }
    expect(parseConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false)
    expect(parseConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(parseConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).trustProxy).toBe(
      '127.0.0.1, 10.0.0.0/8',
    )
  })

  it('reads the switches back from internals: pipelined PostgreSQL reads and the SQLite read cache on by default', () => {
    expect(parseConfig({}).database).toMatchObject({
      hotReads: 'pipelined',
      auditCommit: 'grouped',
      readCache: true,
    })
    const postgres = parseConfig({
      DATABASE_URL: 'postgres://sb@db/sb',
      POSTGRES_HOT_READS: 'pool',
      POSTGRES_AUDIT_COMMIT: 'plain',
    }).database
    expect(postgres).toMatchObject({ kind: 'postgres', hotReads: 'pool', auditCommit: 'plain' })
    expect(parseConfig({ SQLITE_READ_CACHE: 'off' }).database.readCache).toBe(false)
    expect(parseConfig({ PROCESS_TUNING: 'off' }).port).toBe(8080)
    const problems = problemsOf({
      POSTGRES_HOT_READS: 'plain',
      POSTGRES_AUDIT_COMMIT: 'async',
      SQLITE_READ_CACHE: 'no',
      PROCESS_TUNING: 'false',
    })
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'POSTGRES_HOT_READS',
      'POSTGRES_AUDIT_COMMIT',
      'SQLITE_READ_CACHE',
      'PROCESS_TUNING',
    ])
    expect(problems[0]).toContain('pipelined')
    expect(problems[1]).toContain('grouped')
    expect(problems[2]).toContain('off')
  })

  it('treats empty variables as unset', () => {
    expect(parseConfig({ PORT: '', REDIS_URL: ' ' }).port).toBe(8080)
  })

  it('reports every problem at once, each with the variable and a hint, and never the value', () => {
    const secret = 'short-secret-value'
    const problems = problemsOf({
      PORT: 'eighty',
      JWT_SECRET: secret,
      ENCRYPTION_KEY: 'xyz',
      LOG_LEVEL: 'loud',
      SESSION_TTL: '7 weeks',
    })
    const variables = problems.map((p) => p.split(':')[0])
    expect(variables).toEqual(
      expect.arrayContaining(['PORT', 'JWT_SECRET', 'ENCRYPTION_KEY', 'LOG_LEVEL', 'SESSION_TTL']),
    )
    for (const problem of problems) {
      expect(problem).toContain('Expected')
      expect(problem).not.toContain(secret)
    }
  })

  it('rejects unsupported database and URL schemes', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })[0]).toMatch(
      /^DATABASE_URL: unsupported scheme/,
    )
    expect(problemsOf({ PUBLIC_URL: 'ftp://x' })[0]).toMatch(/^PUBLIC_URL/)
    expect(problemsOf({ REDIS_URL: 'http://cache' })[0]).toMatch(/^REDIS_URL/)
    expect(problemsOf({ PASSWORD_HASH_MEMORY_KIB: '8' })[0]).toMatch(/^PASSWORD_HASH_MEMORY_KIB/)
  })

  it('reads the billing configuration: Stripe keys, another API origin, the plans', () => {
    const billing = parseConfig({
      STRIPE_SECRET_KEY: 'sk_test_abcdefgh12345678',
      STRIPE_WEBHOOK_SECRET: 'whsec_abcdefgh12345678',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      BILLING_PLANS:
        '[{"id":"pro","name":"Pro","prices":{"month":"price_1","year":"price_2"}},{"id":"team","name":"Team","prices":{"year":"price_3"}}]',
    }).billing
    expect(billing).toEqual({
      stripeSecretKey: 'sk_test_abcdefgh12345678',
      stripeWebhookSecret: 'whsec_abcdefgh12345678',
      stripeApi: { host: '127.0.0.1', port: 12111, protocol: 'http' },
      plans: [
        { id: 'pro', name: 'Pro', prices: { month: 'price_1', year: 'price_2' } },
        { id: 'team', name: 'Team', prices: { year: 'price_3' } },
      ],
    })
    expect(parseConfig({}).billing).toEqual({ plans: [] })
    expect(parseConfig({ STRIPE_API_BASE: 'https://stripe.internal' }).billing.stripeApi).toEqual({
      host: 'stripe.internal',
      port: 443,
      protocol: 'https',
    })
  })

  it('names every billing problem with a hint, and never a key', () => {
    const key = 'pk_live_notASecretKeyButStillSecretish'
    const keyProblems = problemsOf({ STRIPE_SECRET_KEY: key, STRIPE_WEBHOOK_SECRET: 'secret' })
    expect(keyProblems.map((p) => p.split(':')[0])).toEqual([
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
    ])
    for (const problem of keyProblems) expect(problem).not.toContain(key)
    expect(problemsOf({ STRIPE_API_BASE: 'http://127.0.0.1:12111/v1' })[0]).toMatch(
      /^STRIPE_API_BASE: not an http\(s\) origin/,
    )
    expect(problemsOf({ STRIPE_API_BASE: 'ftp://stripe' })[0]).toMatch(/^STRIPE_API_BASE/)
    expect(problemsOf({ BILLING_PLANS: '[{"id":"pro"' })).toEqual([
      expect.stringMatching(/^BILLING_PLANS: not valid JSON\. Expected a JSON array/),
    ])
    const shape = problemsOf({
      BILLING_PLANS:
        '[{"id":"Pro!","name":"","prices":{}},{"id":"x","name":"X","prices":{"week":"p"}}]',
    })
    expect(shape.map((p) => p.split(': ')[1])).toEqual([
      'at /0/id',
      'at /0/name',
      'at /0/prices',
      'at /1/prices/week',
    ])
    const rules = problemsOf({
      BILLING_PLANS:
        '[{"id":"free","name":"F","prices":{"month":"p1"}},{"id":"a","name":"A","prices":{"month":"p2"}},{"id":"a","name":"B","prices":{"year":"p2"}}]',
    })
    expect(rules).toEqual([
      expect.stringContaining('"free" is reserved'),
      expect.stringContaining('plan ids must be unique'),
      expect.stringContaining('a price may belong to one plan'),
    ])
  })

  it('is documented: the configuration reference lists every variable', () => {
    const reference = fs.readFileSync(
      path.join(import.meta.dirname, '..', 'docs', 'configuration.md'),
      'utf8',
    )
    for (const name of Object.keys(EnvSchema.properties))
      expect(reference, name).toMatch(new RegExp(`\\|\\s*\`${name}\`\\s*\\|`))
  })
})
