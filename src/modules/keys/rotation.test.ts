import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { startInstance, startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { makeTempDir } from '../../../test/helpers/database.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  verifyMfa,
} from '../../../test/helpers/factories.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import { runCli } from '../../cli.js'
import { decrypt } from '../../lib/crypto.js'

function io(env: Record<string, string>, stdin = '') {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    io: {
      env,
      stdin: Readable.from([stdin]),
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
    },
  }
}

describe('switchboard rotate-keys with ENCRYPTION_KEY from the environment', () => {
  const t = useTestApp()

  it('re-encrypts TOTP secrets and settings secrets under the new key, all of them', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const { secret } = await enableMfa(t, admin)
    const smtp = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/smtp',
      headers: bearer(admin.token),
      payload: {
        host: 'smtp.example.com',
        password: 'smtp-password-to-keep',
        current_password: DEFAULT_PASSWORD,
        code: totpCode(secret, t.clock.now()),
      },
    })
    expect(smtp.statusCode).toBe(200)
    const newKey = randomBytes(32)
    const run = io(t.env, `${newKey.toString('hex')}\n`)
    expect(await runCli(['rotate-keys', '--new-key-stdin'], run.io)).toBe(0)
    expect(run.out.stdout).toContain('totp_secrets=1')
    expect(run.out.stdout).toContain('settings_secrets=1')
    expect(run.out.stdout).not.toContain(newKey.toString('hex')) // it came from stdin: not echoed

    const row = await t.deps.db
      .selectFrom('mfa_totp')
      .select('secret_encrypted')
      .where('user_id', '=', admin.user.id)
      .executeTakeFirstOrThrow()
    expect(decrypt(newKey, row.secret_encrypted, `mfa_totp.secret:${admin.user.id}`)).toBe(secret)
    const stored = JSON.parse(
      (
        await t.deps.db
          .selectFrom('settings')
          .select('value')
          .where('key', '=', 'smtp')
          .executeTakeFirstOrThrow()
      ).value,
    )
    expect(decrypt(newKey, stored.password_encrypted, 'settings.smtp')).toBe(
      'smtp-password-to-keep',
    )

    // An instance started with the new key signs the user in with their authenticator as before
    // (a step later: the SMTP change above used this step's code).
    t.clock.advance(30)
    const peer = await startPeerInstance(t, { ENCRYPTION_KEY: newKey.toString('hex') })
    try {
      const mfaToken = (
        await peer.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: admin.email, password: DEFAULT_PASSWORD },
        })
      ).json().mfa_token
      expect(
        (await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()), peer.app)).statusCode,
      ).toBe(200)
    } finally {
      await peer.close()
    }
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('action', '=', 'instance.encryption_key_rotate')
      .execute()
    expect(audit).toHaveLength(1)
  })

  it('refuses a malformed new key and leaves everything as it was', async () => {
    const run = io(t.env, 'not-a-key\n')
    expect(await runCli(['rotate-keys', '--new-key-stdin'], run.io)).toBe(2)
  })
})

describe('switchboard rotate-keys with generated secrets in DATA_DIR', () => {
  const t = useTestApp()

  it('swaps secrets.json after the database committed; --jwt-secret also signs everyone out', async () => {
    const dataDir = makeTempDir()
    const env: Record<string, string> = Object.fromEntries(
      Object.entries(t.env).filter(([name]) => name !== 'ENCRYPTION_KEY' && name !== 'JWT_SECRET'),
    )
    env.DATA_DIR = dataDir
    const before = await startInstance(env, t.clock)
    const user = await createSignedInUser({ ...t, app: before.app, deps: before.deps })
    const { secret } = await enableMfa({ ...t, app: before.app, deps: before.deps }, user)
    await before.close()
    const file = path.join(dataDir, 'secrets.json')
    const old = JSON.parse(fs.readFileSync(file, 'utf8'))

    const run = io(env)
    expect(await runCli(['rotate-keys', '--jwt-secret'], run.io)).toBe(0)
    const now = JSON.parse(fs.readFileSync(file, 'utf8'))
    expect(now.encryption_key).not.toBe(old.encryption_key)
    expect(now.jwt_secret).not.toBe(old.jwt_secret)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.existsSync(`${file}.next`)).toBe(false)
    expect(run.out.stdout).toContain('every session ends')
    expect(run.out.stdout).not.toContain(now.encryption_key)

    const after = await startInstance(env, t.clock)
    try {
      expect(
        (
          await after.app.inject({
            method: 'GET',
            url: '/api/users/me',
            headers: bearer(user.token),
          })
        ).statusCode,
      ).toBe(401)
      const mfaToken = (
        await after.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: user.email, password: DEFAULT_PASSWORD },
        })
      ).json().mfa_token
      expect(
        (await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()), after.app)).statusCode,
      ).toBe(200)
    } finally {
      await after.close()
    }
  })
})
