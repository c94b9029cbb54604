import { describe, expect, it, vi } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  cookieValue,
  createUser,
  DEFAULT_PASSWORD,
  uniqueEmail,
} from '../../../test/helpers/factories.js'

const t = useTestApp()

function loginRequest(email: string, password: string, remoteAddress = '10.0.0.1') {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
  })
}

describe('password login', () => {
  it('signs in with the right password: user, token, expiry, cookies', async () => {
    const { user, email } = await createUser(t)
    const response = await loginRequest(`  ${email.toUpperCase()} `, DEFAULT_PASSWORD)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.user.id).toBe(user.id)
    expect(body.token).toBe(cookieValue(response, 'token'))
    const expiresIn = Date.parse(body.expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(7 * 86400_000 - 60_000)
    expect(expiresIn).toBeLessThanOrEqual(7 * 86400_000)
  })

  it('issues a JWT with sub, sid, iat, exp and iss', async () => {
    const { user, email } = await createUser(t)
    const { token } = (await loginRequest(email, DEFAULT_PASSWORD)).json()
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()))
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' })
    expect(payload).toMatchObject({ sub: user.id, iss: 'http://switchboard.test' })
    expect(typeof payload.sid).toBe('string')
    expect(payload.exp - payload.iat).toBe(7 * 86400)
  })

  it('gives one answer for an unknown email and for a wrong password', async () => {
    const { email } = await createUser(t)
    const wrongPassword = await loginRequest(email, 'not the password at all')
    const unknownEmail = await loginRequest(uniqueEmail('nobody'), DEFAULT_PASSWORD)
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.statusCode).toBe(401)
      expect(response.json()).toMatchObject({ reason: 'INVALID_CREDENTIALS', code: 401 })
      expect(response.cookies).toHaveLength(0)
    }
    expect(wrongPassword.json().message).toBe(unknownEmail.json().message)
  })

  it('spends a real password verification when the email is unknown (comparable timing)', async () => {
    const verify = vi.spyOn(t.deps.passwords, 'verify')
    const { email } = await createUser(t)
    await loginRequest(email, 'wrong password here')
    await loginRequest(uniqueEmail('ghost'), 'wrong password here')
    expect(verify).toHaveBeenCalledTimes(2) // the unknown email is checked against a dummy hash
    verify.mockRestore()
  })

  it('takes comparable time for unknown emails and wrong passwords', async () => {
    const { email } = await createUser(t)
    const time = async (mail: string) => {
      const started = performance.now()
      await loginRequest(mail, 'wrong password here', '10.9.9.9')
      return performance.now() - started
    }
    await time(email) // warm-up (the dummy hash is made on first use)
    await time(uniqueEmail('warm'))
    const known: number[] = []
    const unknown: number[] = []
    // Nine of each, alternating: four let one slow sample on a loaded CI machine move the median.
    for (let i = 0; i < 9; i++) {
      known.push(await time(email))
      unknown.push(await time(uniqueEmail('ghost')))
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const ratio = median(unknown) / median(known)
    expect(ratio).toBeGreaterThan(0.4)
    expect(ratio).toBeLessThan(2.5)
  })

  it('refuses a disabled account with the same answer', async () => {
    const { user, email } = await createUser(t)
    await t.deps.db.updateTable('users').set({ disabled: true }).where('id', '=', user.id).execute()
    const response = await loginRequest(email, DEFAULT_PASSWORD)
    expect(response.statusCode).toBe(401)
    expect(response.json().reason).toBe('INVALID_CREDENTIALS')
  })

  it('refuses an account without a password (OIDC-only) with the same answer', async () => {
    const { email } = await createUser(t, { password: null })
    const response = await loginRequest(email, DEFAULT_PASSWORD)
    expect(response.statusCode).toBe(401)
    expect(response.json().reason).toBe('INVALID_CREDENTIALS')
  })

  it('audits successes and failures without the password', async () => {
    const { user, email } = await createUser(t)
    await loginRequest(email, 'wrong guess 12345')
    await loginRequest(email, DEFAULT_PASSWORD)
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata', 'ip'])
      .where('target_id', '=', user.id)
      .orderBy('at')
      .execute()
    expect(events.map((e) => e.action)).toEqual(['auth.login_failed', 'auth.login'])
    expect(events[0]!.ip).toBe('10.0.0.1')
    for (const event of events) {
      expect(event.metadata).not.toContain('wrong guess')
      expect(event.metadata).not.toContain(DEFAULT_PASSWORD)
    }
  })
})

describe('login failure budgets (docs/API.md#rate-limits)', () => {
  it('blocks the 11th failure for one email from one IP with 429, retryAfter and Retry-After', async () => {
    const { email } = await createUser(t)
    for (let i = 0; i < 10; i++)
      expect((await loginRequest(email, `wrong-${i}-password`, '10.1.0.1')).statusCode).toBe(401)
    const blocked = await loginRequest(email, `wrong-final-password`, '10.1.0.1')
    expect(blocked.statusCode).toBe(429)
    const body = blocked.json()
    expect(body).toMatchObject({ code: 429, reason: 'RATE_LIMITED', error: 'Too Many Requests' })
    expect(body.retryAfter).toBeGreaterThan(0)
    expect(body.retryAfter).toBeLessThanOrEqual(900)
    expect(blocked.headers['retry-after']).toBe(String(body.retryAfter))

    // The right password is refused too while the budget is spent …
    expect((await loginRequest(email, DEFAULT_PASSWORD, '10.1.0.1')).statusCode).toBe(429)
    // … but the same account from another address is not locked out.
    expect((await loginRequest(email, DEFAULT_PASSWORD, '10.1.0.2')).statusCode).toBe(200)
  })

  it('applies the budget before the body is validated', async () => {
    const { email } = await createUser(t)
    for (let i = 0; i < 10; i++) await loginRequest(email, `bad-${i}-password`, '10.2.0.1')
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: '', extra: 1 },
      remoteAddress: '10.2.0.1',
    })
    expect(invalid.statusCode).toBe(429)
  })

  it('does not count successful logins', async () => {
    const { email } = await createUser(t)
    for (let i = 0; i < 15; i++)
      expect((await loginRequest(email, DEFAULT_PASSWORD, '10.3.0.1')).statusCode).toBe(200)
  })

  it('opens again when the 15-minute window has passed', async () => {
    const { email } = await createUser(t)
    for (let i = 0; i < 10; i++) await loginRequest(email, `nope-${i}-password`, '10.4.0.1')
    expect((await loginRequest(email, DEFAULT_PASSWORD, '10.4.0.1')).statusCode).toBe(429)
    t.clock.advance(15 * 60 + 1)
    expect((await loginRequest(email, DEFAULT_PASSWORD, '10.4.0.1')).statusCode).toBe(200)
  })

  it('caps failures per IP at 100 across emails', async () => {
    for (let i = 0; i < 100; i++)
      await loginRequest(uniqueEmail('spray'), 'spray-password-1', '10.5.0.1')
    const { email } = await createUser(t)
    const blocked = await loginRequest(email, DEFAULT_PASSWORD, '10.5.0.1')
    expect(blocked.statusCode).toBe(429)
    expect((await loginRequest(email, DEFAULT_PASSWORD, '10.5.0.2')).statusCode).toBe(200)
  })

  it('caps failures per email at 100 across IPs', async () => {
    const { email } = await createUser(t)
    for (let i = 0; i < 100; i++)
      await loginRequest(email, `distributed-${i}-guess`, `10.6.${Math.floor(i / 200)}.${i % 200}`)
    const blocked = await loginRequest(email, DEFAULT_PASSWORD, '10.6.9.9')
    expect(blocked.statusCode).toBe(429)
  })
})

describe('logout', () => {
  it('revokes the session server-side and clears the cookies', async () => {
    const { email } = await createUser(t)
    const { token } = (await loginRequest(email, DEFAULT_PASSWORD)).json()
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: bearer(token),
    })
    expect(response.statusCode).toBe(204)
    const cleared = response.cookies.filter((c) => c.name === 'token' || c.name === 'csrf_token')
    expect(cleared).toHaveLength(2)
    for (const cookie of cleared) expect(cookie.value).toBe('')

    const after = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(token),
    })
    expect(after.statusCode).toBe(401)
    expect(after.json().reason).toBe('UNAUTHORIZED')
  })
})
