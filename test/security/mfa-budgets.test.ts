/**
 * docs/API.md#two-factor-authentication attempt budgets: 5 wrong codes per mfa_token, 10 per
 * account per 15 minutes.
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

function wrongCode(secret: string): string {
  const right = totpCode(secret, t.clock.now())
  return right === '424242' ? '242424' : '424242'
}

describe('second-factor attempt budgets', () => {
  it('allows 5 wrong codes per mfa_token; the 6th attempt is 429 even with the right code', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    for (let i = 0; i < 5; i++)
      expect((await verifyMfa(t, mfaToken, wrongCode(secret))).statusCode).toBe(401)
    const blocked = await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()))
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({ reason: 'RATE_LIMITED', retryAfter: expect.any(Number) })
    expect(blocked.headers['retry-after']).toBe(String(blocked.json().retryAfter))
    // A fresh sign-in has a fresh token budget (the account has 5 of 10 left).
    expect(
      (
        await verifyMfa(
          t,
          await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
          totpCode(secret, t.clock.now()),
        )
      ).statusCode,
    ).toBe(200)
  })

  it('counts replayed and used codes too', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    expect(
      (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), backupCodes[0]!))
        .statusCode,
    ).toBe(200)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    for (let i = 0; i < 5; i++)
      expect((await verifyMfa(t, mfaToken, backupCodes[0]!)).statusCode).toBe(401)
    expect((await verifyMfa(t, mfaToken, backupCodes[1]!)).statusCode).toBe(429)
  })

  it('allows 10 wrong codes per account across all endpoints, then 429 until the window passes', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    // 4 at sign-in, 3 on disable, 3 on regenerate: 10 across endpoints.
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    for (let i = 0; i < 4; i++)
      expect((await verifyMfa(t, mfaToken, wrongCode(secret))).statusCode).toBe(401)
    for (const url of ['/api/auth/mfa/disable', '/api/auth/mfa/backup/regenerate']) {
      for (let i = 0; i < 3; i++) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: bearer(user.token),
          payload: { code: wrongCode(secret), password: DEFAULT_PASSWORD },
        })
        expect(response.statusCode).toBe(400)
      }
    }
    const fresh = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const blocked = await verifyMfa(t, fresh, totpCode(secret, t.clock.now()))
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().retryAfter).toBeGreaterThan(14 * 60)
    const disable = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/disable',
      headers: bearer(user.token),
      payload: { code: totpCode(secret, t.clock.now()), password: DEFAULT_PASSWORD },
    })
    expect(disable.statusCode).toBe(429)

    t.clock.advance(15 * 60 + 1)
    const later = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect((await verifyMfa(t, later, totpCode(secret, t.clock.now()))).statusCode).toBe(200)
  })

  it('does not count successes', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    for (let i = 0; i < 12; i++) {
      const response = await verifyMfa(
        t,
        await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
        totpCode(secret, t.clock.now()),
      )
      expect(response.statusCode).toBe(200)
      t.clock.advance(30)
    }
  })

  it('audits failures and successes of the second step, never the code', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const wrong = wrongCode(secret)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    await verifyMfa(t, mfaToken, wrong)
    const right = totpCode(secret, t.clock.now())
    await verifyMfa(t, mfaToken, right)
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', user.user.id)
      .orderBy('at')
      .execute()
    const actions = events.map((e) => e.action)
    expect(actions).toEqual(
      expect.arrayContaining([
        'mfa.enroll_begin',
        'mfa.enable',
        'auth.mfa_required',
        'auth.mfa_verify_failed',
        'auth.login',
      ]),
    )
    const text = JSON.stringify(events)
    expect(text).not.toContain(wrong)
    expect(text).not.toContain(right)
    expect(text).not.toContain(secret)
    expect(text).not.toContain(mfaToken)
  })
})
