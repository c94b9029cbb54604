/**
 * docs/API.md#two-factor-authentication backup codes: format, storage, single use under
 * concurrency, regeneration.
 */
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

describe('backup codes', () => {
  it('are stored salted and hashed with argon2id, never as the codes', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    const rows = await t.deps.db
      .selectFrom('mfa_backup_codes')
      .select('code_hash')
      .where('user_id', '=', user.user.id)
      .execute()
    expect(rows).toHaveLength(10)
    const stored = JSON.stringify(rows)
    for (const row of rows) expect(row.code_hash).toMatch(/^\$argon2id\$/)
    for (const code of backupCodes) {
      expect(stored).not.toContain(code)
      expect(stored.toLowerCase()).not.toContain(code.replace('-', ''))
    }
    expect(new Set(rows.map((r) => r.code_hash.split('$')[4])).size).toBe(10) // a salt per code
  })

  it('are accepted without the dash and in any case', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    const noDash = backupCodes[0]!.replace('-', '')
    expect(
      (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), noDash))
        .statusCode,
    ).toBe(200)
    expect(
      (
        await verifyMfa(
          t,
          await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
          backupCodes[1]!.toUpperCase(),
        )
      ).statusCode,
    ).toBe(200)
  })

  it('work once', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    expect(
      (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), backupCodes[2]!))
        .statusCode,
    ).toBe(200)
    const again = await verifyMfa(
      t,
      await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
      backupCodes[2]!,
    )
    expect(again.statusCode).toBe(401)
    expect(again.json().reason).toBe('INVALID_CODE')
  })

  it('succeed exactly once when one code is used 20 times at the same moment', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    // Sign-ins one after another: at most 10 attempts per (email, IP) may be in flight at once.
    const tokens: string[] = []
    for (let i = 0; i < 20; i++)
      tokens.push(await loginForMfaToken(t, user.email, DEFAULT_PASSWORD))
    const results = await Promise.all(tokens.map((token) => verifyMfa(t, token, backupCodes[3]!)))
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s !== 200).every((s) => s === 401 || s === 429)).toBe(true)
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/mfa/status',
      headers: bearer(user.token),
    })
    expect(status.json().backup_codes_remaining).toBe(9)
  })

  it('are all invalidated by regeneration', async () => {
    const user = await createSignedInUser(t)
    const { secret, backupCodes } = await enableMfa(t, user)
    const regenerated = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/backup/regenerate',
      headers: bearer(user.token),
      payload: { code: totpCode(secret, t.clock.now()), password: DEFAULT_PASSWORD },
    })
    expect(regenerated.statusCode).toBe(200)
    for (const old of backupCodes.slice(0, 3)) {
      expect(
        (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), old)).json()
          .reason,
      ).toBe('INVALID_CODE')
    }
  })
})
