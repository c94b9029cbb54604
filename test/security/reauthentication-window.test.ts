/**
 * The re-authentication window ("sudo mode"). A sign-in, or POST
 * /api/auth/reauthenticate with the password and the second factor, lets this session — and only
 * this one — make sensitive changes without a proof for 10 minutes; the service enforces it, so a
 * stolen session outside its window still needs the password. Time is moved with the test clock.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  closeReauthenticationWindows,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  openSessionFor,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'
import { REAUTH_WINDOW_SECONDS } from '../../src/identity/reauth.js'

const t = useTestApp()

const post = (url: string, token: string, payload: Record<string, unknown> = {}) =>
  t.app.inject({ method: 'POST', url, headers: bearer(token), payload })
const reauthenticate = (token: string, payload: Record<string, unknown>) =>
  post('/api/auth/reauthenticate', token, payload)
const changePassword = (token: string, payload: Record<string, unknown>) =>
  post('/api/users/me/password', token, payload)
const NEW_PASSWORD = { new_password: 'another sound passphrase 7' }
const regenerate = (token: string, payload: Record<string, unknown> = {}) =>
  post('/api/auth/mfa/backup/regenerate', token, payload)
const reauthEvents = (userId: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'actor_id', 'target_type', 'target_id', 'metadata'])
    .where('action', '=', 'session.reauthenticate')
    .where('actor_id', '=', userId)
    .execute()
const windowOf = async (userId: string) =>
  (
    await t.deps.db
      .selectFrom('sessions')
      .select(['id', 'reauthenticated_at'])
      .where('user_id', '=', userId)
      .execute()
  ).map((s) => s.reauthenticated_at)

describe('a sign-in opens the window', () => {
  it('inside it a change needs no proof; after 10 minutes the password is asked again', async () => {
    const user = await createSignedInUser(t)
    expect(
      (await changePassword(user.token, { new_password: 'a brand new passphrase' })).statusCode,
    ).toBe(204)
    // A proof that is sent is still checked, window or not.
    expect(
      (
        await changePassword(user.token, {
          current_password: 'not the password',
          new_password: 'yet another passphrase',
        })
      ).json(),
    ).toMatchObject({
      code: 400,
      reason: 'INVALID_PASSWORD',
    })
    t.clock.advance(REAUTH_WINDOW_SECONDS + 1)
    expect(
      (await changePassword(user.token, { new_password: 'yet another passphrase' })).json(),
    ).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect(
      (
        await changePassword(user.token, {
          current_password: 'a brand new passphrase',
          new_password: 'yet another passphrase',
        })
      ).statusCode,
    ).toBe(204)
  })
})

describe('POST /api/auth/reauthenticate', () => {
  it('needs the password and the second factor; opens the window of this session only, and audits it', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    // A second session of the same account (as another sign-in would open).
    const second = await openSessionFor(t, user.user.id)
    await closeReauthenticationWindows(t, user.user.id)

    // Outside the window: the proof is asked for.
    expect((await changePassword(user.token, NEW_PASSWORD)).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })

    // The re-authentication itself: the password alone is not enough with a second factor.
    expect((await reauthenticate(user.token, {})).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect(
      (await reauthenticate(user.token, { password: 'wrong password!' })).json(),
    ).toMatchObject({ code: 400, reason: 'INVALID_PASSWORD' })
    expect((await reauthenticate(user.token, { password: DEFAULT_PASSWORD })).json()).toMatchObject(
      { code: 400, reason: 'SECOND_FACTOR_REQUIRED' },
    )
    expect(
      (
        await reauthenticate(user.token, {
          password: DEFAULT_PASSWORD,
          code: '000000' === totpCode(secret, t.clock.now()) ? '000001' : '000000',
        })
      ).json(),
    ).toMatchObject({
      code: 400,
      reason: 'INVALID_CODE',
    })
    expect(await windowOf(user.user.id)).toEqual([null, null])
    expect(await reauthEvents(user.user.id)).toEqual([])

    const opened = await reauthenticate(user.token, {
      password: DEFAULT_PASSWORD,
      code: totpCode(secret, t.clock.now()),
    })
    expect(opened.statusCode).toBe(200)
    const until = Date.parse(opened.json().reauthenticated_until)
    expect(until - t.clock.now().getTime()).toBeGreaterThan((REAUTH_WINDOW_SECONDS - 5) * 1000)
    expect(until - t.clock.now().getTime()).toBeLessThanOrEqual(REAUTH_WINDOW_SECONDS * 1000)

    // The audit log says which session was re-authenticated and with which factor (no secret).
    const events = await reauthEvents(user.user.id)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ target_type: 'session', target_id: expect.any(String) })
    const metadata =
      typeof events[0]!.metadata === 'string'
        ? JSON.parse(events[0]!.metadata)
        : events[0]!.metadata
    expect(metadata).toEqual({ second_factor: 'totp' })
    expect(JSON.stringify(events)).not.toContain(DEFAULT_PASSWORD)

    // The other session of the same account is unaffected: it still needs the proof.
    expect((await changePassword(second, NEW_PASSWORD)).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })

    // Inside the window, new backup codes and disabling still need the code and the password.
    expect((await regenerate(user.token)).json()).toMatchObject({
      code: 400,
      reason: 'VALIDATION_FAILED',
    })
    t.clock.advance(30)
    const code = totpCode(secret, t.clock.now())
    expect((await regenerate(user.token, { code })).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect((await post('/api/auth/mfa/disable', user.token)).statusCode).toBe(400)
    expect((await regenerate(user.token, { code, password: DEFAULT_PASSWORD })).statusCode).toBe(
      200,
    )
    t.clock.advance(REAUTH_WINDOW_SECONDS - 90)
    const disabled = await post('/api/auth/mfa/disable', user.token, {
      code: totpCode(secret, t.clock.now()),
      password: DEFAULT_PASSWORD,
    })
    expect(disabled.statusCode).toBe(204)
    // An operation the window covers asks nothing.
    expect((await post('/api/auth/mfa/enroll/begin', user.token)).statusCode).toBe(200)

    // Expired: asked again.
    t.clock.advance(61)
    expect((await post('/api/auth/mfa/enroll/begin', user.token)).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
  })

  it('a passkey registration, an account deletion and an identity-provider link take the window too', async () => {
    const user = await createSignedInUser(t)
    await closeReauthenticationWindows(t, user.user.id)
    // Linking a provider carries no proof of its own: outside the window it is refused before
    // anything else.
    expect(
      (await post('/api/users/me/identities/no-such-provider/link', user.token)).json(),
    ).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect(
      (await post('/api/auth/passkeys/registration/options', user.token)).json(),
    ).toMatchObject({ code: 400, reason: 'PASSWORD_REQUIRED' })
    expect((await reauthenticate(user.token, { password: DEFAULT_PASSWORD })).statusCode).toBe(200)
    expect(
      (await post('/api/users/me/identities/no-such-provider/link', user.token)).json(),
    ).toMatchObject({ code: 404, reason: 'NOT_FOUND' })
    expect((await post('/api/auth/passkeys/registration/options', user.token)).statusCode).toBe(200)
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/api/users/me',
          headers: bearer(user.token),
          payload: {},
        })
      ).statusCode,
    ).toBe(204)
  })

  it('an account without a password signs in again instead (RECENT_SIGN_IN_REQUIRED); an API token cannot re-authenticate', async () => {
    const person = await createUser(t, { password: null })
    const session = await openSessionFor(t, person.user.id)
    expect((await reauthenticate(session, { password: 'anything at all' })).json()).toMatchObject({
      code: 403,
      reason: 'RECENT_SIGN_IN_REQUIRED',
    })

    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    expect((await reauthenticate(token, { password: DEFAULT_PASSWORD })).json()).toMatchObject({
      code: 403,
      reason: 'SESSION_REQUIRED',
    })
  })

  it('a burst of wrong passwords spends the per-account budget: 10 are checked, the rest are 429, and no window opens', async () => {
    const user = await createSignedInUser(t)
    await closeReauthenticationWindows(t, user.user.id)
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => reauthenticate(user.token, { password: 'wrong password!' })),
    )
    const reasons = answers.map((r) => r.json().reason).sort()
    expect(reasons.filter((r) => r === 'INVALID_PASSWORD')).toHaveLength(10)
    expect(reasons.filter((r) => r === 'RATE_LIMITED')).toHaveLength(2)
    // The right password is refused too while the budget is spent: the window cannot be
    // brute-forced open.
    expect((await reauthenticate(user.token, { password: DEFAULT_PASSWORD })).json()).toMatchObject(
      { code: 429, reason: 'RATE_LIMITED' },
    )
    expect(await windowOf(user.user.id)).toEqual([null])
  })
})
