/**
 * Administrative changes of credentials or privileges (password, email,
 * is_admin, disabled, MFA reset) need an interactive session and a fresh proof of the acting
 * administrator (password, plus a code when their MFA is on); on one's own account they answer 409
 * naming the self-service route; an admin MFA reset or password change ends the target's sessions.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  uniqueEmail,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'
import { burst } from './attempt-budget-bursts.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const put = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/users/${id}`, headers: bearer(token), payload })
const reset = (token: string, id: string, payload: Record<string, unknown> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/api/admin/users/${id}/mfa/reset`,
    headers: bearer(token),
    payload,
  })
const me = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })

/** A change of each guarded field, for a target that is (or is not) an administrator. */
const credentialChanges = (targetIsAdmin: boolean) => [
  { password: 'taken over 12345' },
  { email: uniqueEmail('moved') },
  { is_admin: !targetIsAdmin },
  { disabled: true },
]

describe('administrative changes of credentials and privileges', () => {
  it("an administrator's API token cannot change credentials or privileges, its own or anyone's (403 SESSION_REQUIRED)", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, admin.token)
    for (const [target, isAdmin] of [
      [admin.user.id, true],
      [user.user.id, false],
    ] as const) {
      for (const change of credentialChanges(isAdmin))
        expectReason(
          await put(token, target, { ...change, current_password: DEFAULT_PASSWORD }),
          403,
          'SESSION_REQUIRED',
        )
      expectReason(
        await reset(token, target, { current_password: DEFAULT_PASSWORD }),
        403,
        'SESSION_REQUIRED',
      )
    }
    // The observed take-over: a password-only sign-in with a password the token set — refused
    // above.
    await expect(login(t, admin.email, 'taken over 12345')).rejects.toThrow(/401/)
    // Other administrative fields stay open to tokens.
    expect((await put(token, user.user.id, { name: 'Renamed by token' })).statusCode).toBe(200)
  })

  it('creating an administrator needs the session and the proof too; an ordinary user does not', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const { token } = await createApiTokenFor(t, admin.token)
    const create = (credential: string, payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/users',
        headers: bearer(credential),
        payload,
      })
    const newAdmin = () => ({
      email: uniqueEmail('new-admin'),
      name: 'New Admin',
      password: 'a new admin passphrase 3',
      is_admin: true,
    })
    expectReason(
      await create(token, { ...newAdmin(), current_password: DEFAULT_PASSWORD }),
      403,
      'SESSION_REQUIRED',
    )
    expectReason(await create(admin.token, newAdmin()), 400, 'PASSWORD_REQUIRED')
    expectReason(
      await create(admin.token, { ...newAdmin(), current_password: 'wrong password' }),
      400,
      'INVALID_PASSWORD',
    )
    expect(
      (await create(admin.token, { ...newAdmin(), current_password: DEFAULT_PASSWORD })).statusCode,
    ).toBe(201)
    expect(
      (await create(token, { email: uniqueEmail('plain'), name: 'Plain User' })).statusCode,
    ).toBe(201)
  })

  it('on your own account they answer 409 SELF_SERVICE_REQUIRED naming the self-service route', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ password: 'my own new passphrase' }, 'POST /api/users/me/password'],
      [{ email: uniqueEmail('self') }, 'POST /api/users/me/email'],
      [{ is_admin: false }, 'another administrator'],
      [{ disabled: true }, 'another administrator'],
    ]
    for (const [change, route] of cases) {
      const response = await put(admin.token, admin.user.id, {
        ...change,
        current_password: DEFAULT_PASSWORD,
      })
      expectReason(response, 409, 'SELF_SERVICE_REQUIRED')
      expect(response.json().details).toContain(route)
    }
    const ownReset = await reset(admin.token, admin.user.id, { current_password: DEFAULT_PASSWORD })
    expectReason(ownReset, 409, 'SELF_SERVICE_REQUIRED')
    expect(ownReset.json().details).toContain('POST /api/auth/mfa/disable')
  })

  it("they need the acting administrator's fresh password, and a code when the administrator has MFA", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    for (const change of credentialChanges(false)) {
      expectReason(await put(admin.token, user.user.id, change), 400, 'PASSWORD_REQUIRED')
      expectReason(
        await put(admin.token, user.user.id, { ...change, current_password: 'not my password' }),
        400,
        'INVALID_PASSWORD',
      )
    }
    expectReason(await reset(admin.token, user.user.id), 400, 'PASSWORD_REQUIRED')

    const { secret } = await enableMfa(t, admin)
    const withoutCode = await put(admin.token, user.user.id, {
      is_admin: true,
      current_password: DEFAULT_PASSWORD,
    })
    expectReason(withoutCode, 400, 'VALIDATION_FAILED')
    expect(withoutCode.json().details).toEqual([
      { field: 'code', message: expect.any(String), code: 'invalid' },
    ])
    const wrong = totpCode(secret, t.clock.now()) === '123456' ? '654321' : '123456'
    expectReason(
      await put(admin.token, user.user.id, {
        is_admin: true,
        current_password: DEFAULT_PASSWORD,
        code: wrong,
      }),
      400,
      'INVALID_CODE',
    )
    const promoted = await put(admin.token, user.user.id, {
      is_admin: true,
      current_password: DEFAULT_PASSWORD,
      code: totpCode(secret, t.clock.now()),
    })
    expect(promoted.statusCode).toBe(200)
    expect(promoted.json().is_admin).toBe(true)
  })

  it("an admin MFA reset and an admin password change end the target's sessions", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    expect((await me(user.token)).statusCode).toBe(200)
    expect(
      (await reset(admin.token, user.user.id, { current_password: DEFAULT_PASSWORD })).statusCode,
    ).toBe(204)
    expectReason(await me(user.token), 401, 'UNAUTHORIZED')

    const again = await login(t, user.email, DEFAULT_PASSWORD)
    expect(
      (
        await put(admin.token, user.user.id, {
          password: 'set by the admin 77',
          current_password: DEFAULT_PASSWORD,
        })
      ).statusCode,
    ).toBe(200)
    expectReason(await me(again.token), 401, 'UNAUTHORIZED')
  })

  it('a burst of wrong administrator passwords evaluates at most 10 (the re-authentication budget)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const result = await burst(
      [t.app],
      50,
      (app, i) =>
        app.inject({
          method: 'PUT',
          url: `/api/admin/users/${user.user.id}`,
          headers: bearer(admin.token),
          payload: { disabled: true, current_password: `wrong ${i}` },
        }),
      'INVALID_PASSWORD',
    )
    expect(result.other).toEqual([])
    expect(result.evaluated).toBeLessThanOrEqual(10)
  })
})
