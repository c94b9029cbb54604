/** The whole MFA life cycle over HTTP, with codes computed by the suite's own RFC 6238 code. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  closeReauthenticationWindows,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  loginForMfaToken,
  openSessionFor,
  verifyMfa,
} from '../../../test/helpers/factories.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'

const t = useTestApp()

const post = (url: string, token: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload && { payload }) })
const status = async (token: string) =>
  (
    await t.app.inject({ method: 'GET', url: '/api/auth/mfa/status', headers: bearer(token) })
  ).json()

describe('enrollment', () => {
  it('starts from "not enabled", with no secret anywhere in the status', async () => {
    const user = await createSignedInUser(t)
    expect(await status(user.token)).toEqual({
      enabled: false,
      pending: false,
      backup_codes_remaining: 0,
      enrollment_required: false,
    })
  })

  it('begin needs the password (outside the re-authentication window): missing → PASSWORD_REQUIRED, wrong → INVALID_PASSWORD', async () => {
    const user = await createSignedInUser(t)
    await closeReauthenticationWindows(t, user.user.id)
    expect((await post('/api/auth/mfa/enroll/begin', user.token, {})).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect(
      (
        await post('/api/auth/mfa/enroll/begin', user.token, { password: 'not the password' })
      ).json(),
    ).toMatchObject({
      code: 400,
      reason: 'INVALID_PASSWORD',
    })
  })

  it('begin returns a 160-bit secret, its otpauth URL and QR code, valid 10 minutes', async () => {
    const user = await createSignedInUser(t)
    const response = await post('/api/auth/mfa/enroll/begin', user.token, {
      password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(body.otpauth_url).toBe(
      `otpauth://totp/Switchboard:${encodeURIComponent(user.email)}?secret=${body.secret}&issuer=Switchboard&algorithm=SHA1&digits=6&period=30`,
    )
    expect(body.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/)
    const ttl = Date.parse(body.expires_at) - t.clock.now().getTime()
    expect(ttl).toBeGreaterThan(9 * 60_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000)
    expect(await status(user.token)).toEqual({
      enabled: false,
      pending: true,
      backup_codes_remaining: 0,
      enrollment_required: false,
    })
  })

  it('confirm refuses a malformed code (400 VALIDATION_FAILED) and a wrong one (400 INVALID_CODE)', async () => {
    const user = await createSignedInUser(t)
    const { secret } = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    expect(
      (await post('/api/auth/mfa/enroll/confirm', user.token, { code: '12345' })).json().reason,
    ).toBe('VALIDATION_FAILED')
    const right = totpCode(secret, t.clock.now())
    const wrong = right === '000000' ? '000001' : '000000'
    const response = await post('/api/auth/mfa/enroll/confirm', user.token, { code: wrong })
    expect(response.statusCode).toBe(400)
    expect(response.json().reason).toBe('INVALID_CODE')
    expect((await status(user.token)).enabled).toBe(false)
  })

  it('confirm with the right code enables MFA, returns 10 one-time codes once, and ends the other sessions', async () => {
    const user = await createSignedInUser(t)
    const otherSession = await login(t, user.email, DEFAULT_PASSWORD)
    const { secret } = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    const response = await post('/api/auth/mfa/enroll/confirm', user.token, {
      code: totpCode(secret, t.clock.now()),
    })
    expect(response.statusCode).toBe(200)
    const codes: string[] = response.json().backup_codes
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
    expect(new Set(codes).size).toBe(10)

    const after = await status(user.token)
    expect(after).toEqual({
      enabled: true,
      enrolled_at: expect.any(String),
      pending: false,
      backup_codes_remaining: 10,
      enrollment_required: false,
    })
    expect(JSON.stringify(after)).not.toContain(secret)
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/users/me',
          headers: bearer(otherSession.token),
        })
      ).statusCode,
    ).toBe(401)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
        .statusCode,
    ).toBe(200)
  })

  it('answers 409 MFA_ALREADY_ENABLED to begin, confirm and cancel once enabled', async () => {
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    for (const [url, payload] of [
      ['/api/auth/mfa/enroll/begin', { password: DEFAULT_PASSWORD }],
      ['/api/auth/mfa/enroll/confirm', { code: '123456' }],
      ['/api/auth/mfa/enroll/cancel', undefined],
    ] as const) {
      const response = await post(url, user.token, payload)
      expect(response.statusCode).toBe(409)
      expect(response.json()).toMatchObject({ error: 'Conflict', reason: 'MFA_ALREADY_ENABLED' })
    }
  })

  it('answers 409 MFA_NO_PENDING when there is no enrollment: never begun, cancelled, or expired', async () => {
    const user = await createSignedInUser(t)
    expect(
      (await post('/api/auth/mfa/enroll/confirm', user.token, { code: '123456' })).json().reason,
    ).toBe('MFA_NO_PENDING')

    const first = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    expect((await post('/api/auth/mfa/enroll/cancel', user.token)).statusCode).toBe(204)
    expect((await status(user.token)).pending).toBe(false)
    const afterCancel = await post('/api/auth/mfa/enroll/confirm', user.token, {
      code: totpCode(first.secret, t.clock.now()),
    })
    expect(afterCancel.json().reason).toBe('MFA_NO_PENDING')

    const second = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    expect((await status(user.token)).pending).toBe(true)
    t.clock.advance(10 * 60 + 1)
    // Nothing was written meanwhile: the status answers from the clock, not from a stored change.
    expect((await status(user.token)).pending).toBe(false)
    const expired = await post('/api/auth/mfa/enroll/confirm', user.token, {
      code: totpCode(second.secret, t.clock.now()),
    })
    expect(expired.statusCode).toBe(409)
    expect(expired.json().reason).toBe('MFA_NO_PENDING')
  })

  it('a second begin replaces the pending secret', async () => {
    const user = await createSignedInUser(t)
    const first = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    const second = (
      await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    ).json()
    expect(second.secret).not.toBe(first.secret)
    const stale = await post('/api/auth/mfa/enroll/confirm', user.token, {
      code: totpCode(first.secret, t.clock.now()),
    })
    expect(stale.json().reason).toBe('INVALID_CODE')
    const fresh = await post('/api/auth/mfa/enroll/confirm', user.token, {
      code: totpCode(second.secret, t.clock.now()),
    })
    expect(fresh.statusCode).toBe(200)
  })
})

describe('sign-in with MFA', () => {
  it('login answers with an mfa_token instead of a session', async () => {
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: DEFAULT_PASSWORD },
    })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toEqual({
      mfa_required: true,
      mfa_token: expect.any(String),
      expires_at: expect.any(String),
    })
    expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBeLessThanOrEqual(5 * 60_000)
    expect(response.cookies).toHaveLength(0)
  })

  it('verify with a TOTP code completes the sign-in like a login without MFA', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const response = await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()))
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.user.id).toBe(user.user.id)
    expect(response.cookies.find((c) => c.name === 'token')?.value).toBe(body.token)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(body.token) }))
        .statusCode,
    ).toBe(200)
  })

  it('verify with a backup code consumes it', async () => {
    const user = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect((await verifyMfa(t, mfaToken, backupCodes[0]!)).statusCode).toBe(200)
    expect((await status(user.token)).backup_codes_remaining).toBe(9)
  })

  it('the mfa_token is single use and expires after 5 minutes: 401 MFA_PENDING_INVALID', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect((await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()))).statusCode).toBe(200)
    t.clock.advance(30)
    const reused = await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()))
    expect(reused.statusCode).toBe(401)
    expect(reused.json().reason).toBe('MFA_PENDING_INVALID')

    const late = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    t.clock.advance(5 * 60 + 1)
    const expired = await verifyMfa(t, late, totpCode(secret, t.clock.now()))
    expect(expired.json()).toMatchObject({ code: 401, reason: 'MFA_PENDING_INVALID' })
    expect((await verifyMfa(t, 'made-up-token', '123456')).json().reason).toBe(
      'MFA_PENDING_INVALID',
    )
  })

  it('a wrong code at the login step is 401 INVALID_CODE', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const right = totpCode(secret, t.clock.now())
    const response = await verifyMfa(t, mfaToken, right === '999999' ? '999998' : '999999')
    expect(response.statusCode).toBe(401)
    expect(response.json().reason).toBe('INVALID_CODE')
    expect((await verifyMfa(t, mfaToken, 'not-a-code')).json().reason).toBe('INVALID_CODE')
  })
})

describe('disable and regenerate', () => {
  it('regenerate needs the password and a code; the new set replaces every earlier code', async () => {
    const user = await createSignedInUser(t)
    const { secret, backupCodes } = await enableMfa(t, user)
    await closeReauthenticationWindows(t, user.user.id)
    expect(
      (await post('/api/auth/mfa/backup/regenerate', user.token, { code: backupCodes[0]! })).json()
        .reason,
    ).toBe('PASSWORD_REQUIRED')
    expect(
      (
        await post('/api/auth/mfa/backup/regenerate', user.token, { password: DEFAULT_PASSWORD })
      ).json(),
    ).toMatchObject({ reason: 'VALIDATION_FAILED', details: [{ field: 'code' }] })
    const response = await post('/api/auth/mfa/backup/regenerate', user.token, {
      code: totpCode(secret, t.clock.now()),
      password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(200)
    const fresh: string[] = response.json().backup_codes
    expect(fresh).toHaveLength(10)
    expect(fresh.some((code) => backupCodes.includes(code))).toBe(false)
    expect((await status(user.token)).backup_codes_remaining).toBe(10)

    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect((await verifyMfa(t, mfaToken, backupCodes[1]!)).json().reason).toBe('INVALID_CODE')
    expect((await verifyMfa(t, mfaToken, fresh[0]!)).statusCode).toBe(200)
  })

  it('disable: missing password, wrong code, then success; MFA is off and other sessions end', async () => {
    const user = await createSignedInUser(t)
    const { secret, backupCodes } = await enableMfa(t, user)
    const other = await verifyMfa(
      t,
      await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
      backupCodes[5]!,
    )
    expect(other.statusCode).toBe(200)
    await closeReauthenticationWindows(t, user.user.id)
    expect(
      (await post('/api/auth/mfa/disable', user.token, { code: '123456' })).json(),
    ).toMatchObject({ code: 400, reason: 'PASSWORD_REQUIRED' })
    const right = totpCode(secret, t.clock.now())
    const wrong = await post('/api/auth/mfa/disable', user.token, {
      code: right === '111111' ? '111112' : '111111',
      password: DEFAULT_PASSWORD,
    })
    expect(wrong.json()).toMatchObject({ code: 400, reason: 'INVALID_CODE' })
    const wrongPassword = await post('/api/auth/mfa/disable', user.token, {
      code: right,
      password: 'bad password!',
    })
    expect(wrongPassword.json().reason).toBe('INVALID_PASSWORD')

    const ok = await post('/api/auth/mfa/disable', user.token, {
      code: right,
      password: DEFAULT_PASSWORD,
    })
    expect(ok.statusCode).toBe(204)
    expect(await status(user.token)).toEqual({
      enabled: false,
      pending: false,
      backup_codes_remaining: 0,
      enrollment_required: false,
    })
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/users/me',
          headers: bearer(other.json().token),
        })
      ).statusCode,
    ).toBe(401)
    // Login is single-step again.
    expect((await login(t, user.email, DEFAULT_PASSWORD)).token).toBeTruthy()
  })

  it('answers 409 MFA_NOT_ENABLED to disable and regenerate while MFA is off', async () => {
    const user = await createSignedInUser(t)
    for (const url of ['/api/auth/mfa/disable', '/api/auth/mfa/backup/regenerate']) {
      const response = await post(url, user.token, { code: '123456', password: DEFAULT_PASSWORD })
      expect(response.statusCode).toBe(409)
      expect(response.json().reason).toBe('MFA_NOT_ENABLED')
    }
  })

  it('an account without a password (OIDC-only) omits it', async () => {
    const { user } = await createUser(t, { password: null })
    const token = await openSessionFor(t, user.id)
    const { secret } = await enableMfa(t, { token, password: null })
    const response = await post('/api/auth/mfa/disable', token, {
      code: totpCode(secret, t.clock.now()),
    })
    expect(response.statusCode).toBe(204)
  })
})

describe('the audit trail of the MFA life cycle', () => {
  it('records begin, cancel, enable, regenerate and disable, never the secret or a code', async () => {
    const user = await createSignedInUser(t)
    await post('/api/auth/mfa/enroll/begin', user.token, { password: DEFAULT_PASSWORD })
    await post('/api/auth/mfa/enroll/cancel', user.token)
    const { secret, backupCodes } = await enableMfa(t, user)
    const regenerated = await post('/api/auth/mfa/backup/regenerate', user.token, {
      code: backupCodes[0]!,
      password: DEFAULT_PASSWORD,
    })
    expect(regenerated.statusCode).toBe(200)
    const disabled = await post('/api/auth/mfa/disable', user.token, {
      code: totpCode(secret, t.clock.now()),
      password: DEFAULT_PASSWORD,
    })
    expect(disabled.statusCode).toBe(204)
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', user.user.id)
      .orderBy('at')
      .orderBy('id')
      .execute()
    expect(events.map((e) => e.action).filter((a) => a.startsWith('mfa.'))).toEqual([
      'mfa.enroll_begin',
      'mfa.enroll_cancel',
      'mfa.enroll_begin',
      'mfa.enable',
      'mfa.backup_regenerate',
      'mfa.disable',
    ])
    const text = JSON.stringify(events)
    expect(text).not.toContain(secret)
    for (const code of [...backupCodes, ...regenerated.json().backup_codes])
      expect(text).not.toContain(code)
  })
})

describe('account deletion with MFA on', () => {
  it('needs a code as well as the password', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    await closeReauthenticationWindows(t, user.user.id)
    const remove = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'DELETE', url: '/api/users/me', headers: bearer(user.token), payload })
    const missing = await remove({ password: DEFAULT_PASSWORD })
    expect(missing.json()).toMatchObject({
      reason: 'VALIDATION_FAILED',
      details: [{ field: 'code', message: expect.any(String) }],
    })
    expect(
      (
        await remove({
          password: DEFAULT_PASSWORD,
          code: '000000' === totpCode(secret, t.clock.now()) ? '000001' : '000000',
        })
      ).json().reason,
    ).toBe('INVALID_CODE')
    expect(
      (await remove({ password: DEFAULT_PASSWORD, code: totpCode(secret, t.clock.now()) }))
        .statusCode,
    ).toBe(204)
  })
})

describe('a personal API token and MFA (docs/API.md#what-an-api-token-may-not-do)', () => {
  it('answers 403 SESSION_REQUIRED to starting or cancelling an enrolment; the rest needs account.security:write', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token, 'all but security', {
      permissions: ['profile:write', 'links:write', 'organizations:write', 'billing:write'],
    })
    for (const url of ['/api/auth/mfa/enroll/begin', '/api/auth/mfa/enroll/cancel']) {
      const response = await post(url, token, { code: '123456', password: DEFAULT_PASSWORD })
      expect(response.statusCode, url).toBe(403)
      expect(response.json().reason).toBe('SESSION_REQUIRED')
    }
    for (const url of [
      '/api/auth/mfa/enroll/confirm',
      '/api/auth/mfa/disable',
      '/api/auth/mfa/backup/regenerate',
    ]) {
      const response = await post(url, token, { code: '123456', password: DEFAULT_PASSWORD })
      expect(response.statusCode, url).toBe(403)
      expect(response.json()).toMatchObject({
        reason: 'INSUFFICIENT_SCOPE',
        details: { required: 'account.security:write' },
      })
    }
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/mfa/status',
      headers: bearer(token),
    })
    expect(status.statusCode).toBe(200)
    expect(status.json()).toMatchObject({ enabled: false, pending: false })
  })
})

describe('status without credentials', () => {
  it('is 401', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/mfa/status' })
    expect(response.statusCode).toBe(401)
    expect(response.json().reason).toBe('UNAUTHORIZED')
  })
})
