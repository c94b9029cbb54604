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
    expect(config.database).toMatchObject({ kind: 'sqlite', url: path.resolve('data/switchboard.db') })
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
    expect(config.database).toMatchObject({ kind: 'postgres', url: 'postgres://sb:pw@db:5432/sb', poolSize: 10 })
    expect(config.redisUrl).toBe('redis://cache:6379')
    expect(config.encryptionKey).toEqual(Buffer.alloc(32, 0xab))
    expect(config.sessionTtlSeconds).toBe(12 * 3600)
    expect(config.trustProxy).toBe(1)
  })

  it('treats empty variables as unset', () => {
    expect(parseConfig({ PORT: '', REDIS_URL: ' ' }).port).toBe(8080)
  })

  it('reports every problem at once, each with the variable and a hint, and never the value', () => {
    const secret = 'short-secret-value'
    const problems = problemsOf({ PORT: 'eighty', JWT_SECRET: secret, ENCRYPTION_KEY: 'xyz', LOG_LEVEL: 'loud', SESSION_TTL: '7 weeks' })
    const variables = problems.map((p) => p.split(':')[0])
    expect(variables).toEqual(expect.arrayContaining(['PORT', 'JWT_SECRET', 'ENCRYPTION_KEY', 'LOG_LEVEL', 'SESSION_TTL']))
    for (const problem of problems) {
      expect(problem).toContain('Expected')
      expect(problem).not.toContain(secret)
    }
  })

  it('rejects unsupported database and URL schemes', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })[0]).toMatch(/^DATABASE_URL: unsupported scheme/)
    expect(problemsOf({ PUBLIC_URL: 'ftp://x' })[0]).toMatch(/^PUBLIC_URL/)
    expect(problemsOf({ REDIS_URL: 'http://cache' })[0]).toMatch(/^REDIS_URL/)
    expect(problemsOf({ PASSWORD_HASH_MEMORY_KIB: '8' })[0]).toMatch(/^PASSWORD_HASH_MEMORY_KIB/)
  })

  it('is documented: the README configuration table lists every variable', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8')
    for (const name of Object.keys(EnvSchema.properties)) expect(readme, name).toMatch(new RegExp(`\\|\\s*\`${name}\`\\s*\\|`))
  })
})
