import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, makeTempDir, type TestDatabase } from '../test/helpers/database.js'
import { runCli } from './cli.js'
import { parseConfig } from './config.js'
import { createDeps } from './deps.js'
import { createLogger } from './logger.js'
import { sha256Hex } from './lib/crypto.js'
import { completePasswordReset } from './modules/password-reset/service.js'
import { setupCodeFor } from './modules/auth/setup-code.js'

let database: TestDatabase
let env: Record<string, string>

beforeAll(async () => {
  const dataDir = makeTempDir()
  database = await createTestDatabase(dataDir)
  env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_ITERATIONS: '1',
  }
})
afterAll(async () => database.drop())

async function run(args: string[], stdin = '') {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    env,
    stdin: Readable.from([stdin]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  })
  return { code, stdout, stderr }
}

async function users() {
  const deps = createDeps(parseConfig(env), { logger: createLogger({ logLevel: 'silent' }) })
  try {
    return await deps.db
      .selectFrom('users')
      .select(['email', 'name', 'is_admin', 'password_hash'])
      .execute()
  } finally {
    await deps.close()
  }
}

describe('switchboard CLI', () => {
  it('migrates the database', async () => {
    const result = await run(['migrate'])
    expect(result).toMatchObject({ code: 0, stdout: 'database is up to date\n' })
  })

  it('prints the setup code while no user exists', async () => {
    const deps = createDeps(parseConfig(env), { logger: createLogger({ logLevel: 'silent' }) })
    const expected = setupCodeFor(deps)
    await deps.close()
    expect(await run(['setup-code'])).toMatchObject({
      code: 0,
      stdout: `${expected}\n`,
      stderr: '',
    })
  })

  it('creates an administrator with the password read from standard input', async () => {
    const result = await run(
      ['create-admin', '--email', ' Ops@Example.com ', '--name', ' Ops Team '],
      'operator passphrase 7\n',
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^created administrator ops@example.com \(id [0-9a-f-]+\)\n$/)
    expect(result.stdout).not.toContain('operator passphrase')
    const [admin] = await users()
    expect(admin).toMatchObject({ email: 'ops@example.com', name: 'Ops Team' })
    expect(Boolean(admin!.is_admin)).toBe(true)
    expect(admin!.password_hash).toMatch(/^\$argon2id\$/)
  })

  it('refuses a taken email, a weak password and a malformed email, with exit code ≠ 0', async () => {
    expect(
      (
        await run(
          ['create-admin', '--email', 'ops@example.com', '--name', 'Again'],
          'another passphrase 8\n',
        )
      ).code,
    ).toBe(1)
    const weak = await run(
      ['create-admin', '--email', 'weak@example.com', '--name', 'Weak'],
      'password\n',
    )
    expect(weak.code).toBe(1)
    expect(weak.stderr).toContain('password')
    const malformed = await run(
      ['create-admin', '--email', 'not-an-email', '--name', 'X'],
      'another passphrase 8\n',
    )
    expect(malformed.code).toBe(2)
    expect(malformed.stderr).toContain('--email')
    expect(await users()).toHaveLength(1)
  })

  it('explains its usage for a missing option or an unknown command', async () => {
    expect((await run(['create-admin', '--email', 'x@example.com'])).code).toBe(2)
    const unknown = await run(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('usage: switchboard')
  })

  it('prints a single-use password reset link, stored hashed and audited; an unknown email is exit 1', async () => {
    const result = await run(['reset-password', ' OPS@example.com '])
    expect(result.code).toBe(0)
    const url = /^(http\S+\/reset-password\?token=([A-Za-z0-9_-]{43}))$/m.exec(result.stdout)
    expect(url, result.stdout).not.toBeNull()
    expect(result.stdout).toContain('ops@example.com')
    const token = url![2]!
    expect((await run(['reset-password', 'nobody@example.com'])).code).toBe(1)
    expect((await run(['reset-password'])).code).toBe(2)

    const deps = createDeps(parseConfig(env), { logger: createLogger({ logLevel: 'silent' }) })
    try {
      const rows = await deps.db
        .selectFrom('password_resets')
        .select(['token_hash', 'via', 'created_at', 'expires_at'])
        .execute()
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ token_hash: sha256Hex(token), via: 'cli' })
      expect(
        new Date(rows[0]!.expires_at).getTime() - new Date(rows[0]!.created_at).getTime(),
      ).toBe(24 * 3600 * 1000)
      const events = await deps.db
        .selectFrom('audit_events')
        .select(['action', 'metadata'])
        .where('action', '=', 'user.password_reset_requested')
        .execute()
      expect(events).toHaveLength(1)
      expect(JSON.stringify(events[0])).toContain('cli')
      expect(JSON.stringify(events[0])).not.toContain(token)
      const ctx = { ip: null, userAgent: null }
      expect(
        await completePasswordReset(deps, { token, new_password: 'operator passphrase 8' }, ctx),
      ).toMatchObject({ sessions_revoked: 0 })
      await expect(
        completePasswordReset(deps, { token, new_password: 'operator passphrase 9' }, ctx),
      ).rejects.toMatchObject({
        reason: 'RESET_LINK_INVALID',
      })
    } finally {
      await deps.close()
    }
  })

  it('prints no setup code once a user exists', async () => {
    expect(await users()).not.toHaveLength(0)
    const after = await run(['setup-code'])
    expect(after).toMatchObject({ code: 1, stdout: '' })
    expect(after.stderr).toContain('already set up')
  })

  it('reports invalid configuration', async () => {
    const saved = env
    env = { ...env, DATABASE_URL: 'mysql://nope' }
    try {
      const result = await run(['migrate'])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('DATABASE_URL')
    } finally {
      env = saved
    }
  })
})
