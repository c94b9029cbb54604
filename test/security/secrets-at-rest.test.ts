/** TOTP secrets (pending and active) are AES-256-GCM ciphertext at rest; tampering is an error. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
  verifyMfa,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'

const t = useTestApp()

describe('TOTP secrets at rest', () => {
  it('are stored as versioned ciphertext, pending and active', async () => {
    const user = await createSignedInUser(t)
    const begin = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/enroll/begin',
      headers: bearer(user.token),
      payload: { password: DEFAULT_PASSWORD },
    })
    const secret: string = begin.json().secret
    const pending = await t.deps.db
      .selectFrom('mfa_pending')
      .select('secret_encrypted')
      .where('user_id', '=', user.user.id)
      .executeTakeFirstOrThrow()
    expect(pending.secret_encrypted).toMatch(/^v1\.[A-Za-z0-9_-]+$/)
    expect(pending.secret_encrypted).not.toContain(secret)

    await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/enroll/confirm',
      headers: bearer(user.token),
      payload: { code: totpCode(secret, t.clock.now()) },
    })
    const active = await t.deps.db
      .selectFrom('mfa_totp')
      .select('secret_encrypted')
      .where('user_id', '=', user.user.id)
      .executeTakeFirstOrThrow()
    expect(active.secret_encrypted).toMatch(/^v1\./)
    expect(active.secret_encrypted).not.toContain(secret)
    expect(active.secret_encrypted).not.toBe(pending.secret_encrypted)
  })

  it('a tampered ciphertext is an error (500, logged), never read as a plaintext secret', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const row = await t.deps.db
      .selectFrom('mfa_totp')
      .select('secret_encrypted')
      .where('user_id', '=', user.user.id)
      .executeTakeFirstOrThrow()
    const raw = Buffer.from(row.secret_encrypted.slice(3), 'base64url')
    raw[20] = raw[20]! ^ 0xff
    for (const tampered of [`v1.${raw.toString('base64url')}`, secret]) {
      await t.deps.db
        .updateTable('mfa_totp')
        .set({ secret_encrypted: tampered })
        .where('user_id', '=', user.user.id)
        .execute()
      const response = await verifyMfa(
        t,
        await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
        totpCode(secret, t.clock.now()),
      )
      expect(response.statusCode).toBe(500)
      expect(response.json().reason).toBe('INTERNAL')
    }
    expect(t.logs.some((line) => line.includes('DecryptionError'))).toBe(true)
  })

  it('cannot be moved to another user (the ciphertext is bound to its row)', async () => {
    const alice = await createSignedInUser(t)
    const mallory = await createSignedInUser(t)
    const { secret } = await enableMfa(t, alice)
    await enableMfa(t, mallory)
    const aliceRow = await t.deps.db
      .selectFrom('mfa_totp')
      .select('secret_encrypted')
      .where('user_id', '=', alice.user.id)
      .executeTakeFirstOrThrow()
    await t.deps.db
      .updateTable('mfa_totp')
      .set({ secret_encrypted: aliceRow.secret_encrypted })
      .where('user_id', '=', mallory.user.id)
      .execute()
    const response = await verifyMfa(
      t,
      await loginForMfaToken(t, mallory.email, DEFAULT_PASSWORD),
      totpCode(secret, t.clock.now()),
    )
    expect(response.statusCode).toBe(500)
  })
})
