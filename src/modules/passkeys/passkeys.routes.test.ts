/** Registering and managing passkeys over HTTP, with the suite's software authenticator. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  closeReauthenticationWindows,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
  login,
  loginForMfaToken,
} from '../../../test/helpers/factories.js'
import {
  authenticatorFor,
  completeRegistration,
  passkeyProof,
  passwordlessOptions,
  registerPasskey,
  registrationOptions,
  signInWithPasskey,
} from '../../../test/helpers/passkeys.js'
import { MAX_PASSKEYS_PER_USER } from './service.js'

const t = useTestApp()

const list = async (token: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/auth/passkeys', headers: bearer(token) })).json()
const patch = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/auth/passkeys/${id}`,
    headers: bearer(token),
    payload,
  })
const remove = (token: string, id: string, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'DELETE',
    url: `/api/auth/passkeys/${id}`,
    headers: bearer(token),
    payload,
  })

describe('registration', () => {
  it('asks for the password, offers a discoverable ES256 credential for this relying party, and stores it', async () => {
    const user = await createSignedInUser(t)
    // Outside the re-authentication window its sign-in opened.
    await closeReauthenticationWindows(t, user.user.id)
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/registration/options',
      headers: bearer(user.token),
      payload: {},
    })
    expect(missing.json()).toMatchObject({ code: 400, reason: 'PASSWORD_REQUIRED' })
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/registration/options',
      headers: bearer(user.token),
      payload: { password: 'not the password' },
    })
    expect(wrong.json()).toMatchObject({ code: 400, reason: 'INVALID_PASSWORD' })

    const options = await registrationOptions(t, user.token, DEFAULT_PASSWORD)
    expect(options.rp).toEqual({ name: 'Switchboard', id: 'switchboard.test' })
    expect(options.user.name).toBe(user.email)
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(user.user.id)
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required' })
    expect(options.pubKeyCredParams).toContainEqual({ type: 'public-key', alg: -7 })

    const authenticator = authenticatorFor(t, { backupEligible: true, backedUp: true })
    const response = await completeRegistration(
      t,
      user.token,
      authenticator.register(options),
      'Laptop',
    )
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Laptop',
      created_at: expect.any(String),
      last_used_at: null,
      backup_eligible: true,
      backed_up: true,
    })
    expect((await list(user.token)).items).toEqual([response.json()])
    const row = await t.deps.db
      .selectFrom('passkeys')
      .select(['public_key', 'counter'])
      .where('id', '=', response.json().id)
      .executeTakeFirstOrThrow()
    expect(Buffer.isBuffer(row.public_key) || row.public_key instanceof Uint8Array).toBe(true)
    expect(Number(row.counter)).toBe(0)
  })

  it('registers several passkeys, and sign-in then asks for the second factor', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    await registerPasskey(t, user, authenticator, { name: 'Phone' })
    await registerPasskey(t, user, authenticator, {
      name: 'Key',
      proof: { passkey: authenticator },
    })
    expect((await list(user.token)).items.map((p: { name: string }) => p.name)).toEqual([
      'Key',
      'Phone',
    ])
    expect(await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)).toEqual(expect.any(String))
  })

  it('the first passkey ends the other sessions (like enabling TOTP); a second does not', async () => {
    const user = await createSignedInUser(t)
    const other = await login(t, user.email, DEFAULT_PASSWORD)
    await registerPasskey(t, user, authenticatorFor(t))
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(other.token) }))
        .statusCode,
    ).toBe(401)
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
        .statusCode,
    ).toBe(200)
  })

  it('refuses an answer for another origin or RP id with PASSKEY_VERIFICATION_FAILED', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const origin = await completeRegistration(
      t,
      user.token,
      authenticator.register(await registrationOptions(t, user.token, DEFAULT_PASSWORD), {
        origin: 'https://evil.example',
      }),
    )
    expect(origin.statusCode).toBe(400)
    expect(origin.json()).toMatchObject({
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringContaining('origin'),
    })
    const rpId = await completeRegistration(
      t,
      user.token,
      authenticator.register(await registrationOptions(t, user.token, DEFAULT_PASSWORD), {
        rpId: 'evil.example',
      }),
    )
    expect(rpId.json()).toMatchObject({
      code: 400,
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringContaining('RP id'),
    })
    expect((await list(user.token)).items).toEqual([])
  })

  it('a challenge is single use, expires after 5 minutes, and belongs to the session that asked for it', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const options = await registrationOptions(t, user.token, DEFAULT_PASSWORD)
    expect(
      (await completeRegistration(t, user.token, authenticator.register(options))).statusCode,
    ).toBe(201)
    const reused = await completeRegistration(t, user.token, authenticator.register(options))
    expect(reused.json()).toMatchObject({ code: 409, reason: 'PASSKEY_CHALLENGE_EXPIRED' })

    const late = await registrationOptions(t, user.token, DEFAULT_PASSWORD, {
      passkey: authenticator,
      credential: authenticator.credentials[0]!,
    })
    t.clock.advance(5 * 60 + 1)
    expect(
      (await completeRegistration(t, user.token, authenticator.register(late))).json(),
    ).toMatchObject({ reason: 'PASSKEY_CHALLENGE_EXPIRED' })
  })

  it("another session cannot complete this session's registration", async () => {
    const user = await createSignedInUser(t)
    const otherSession = await login(t, user.email, DEFAULT_PASSWORD)
    const mine = await registrationOptions(t, user.token, DEFAULT_PASSWORD)
    const elsewhere = await completeRegistration(
      t,
      otherSession.token,
      authenticatorFor(t).register(mine),
    )
    expect(elsewhere.json()).toMatchObject({ code: 409, reason: 'PASSKEY_CHALLENGE_EXPIRED' })
  })

  it('two concurrent completions with one challenge register one passkey', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const options = await registrationOptions(t, user.token, DEFAULT_PASSWORD)
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => completeRegistration(t, user.token, authenticator.register(options))),
    )
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1)
    expect(
      answers
        .filter((r) => r.statusCode === 409)
        .every((r) => r.json().reason === 'PASSKEY_CHALLENGE_EXPIRED'),
    ).toBe(true)
    expect((await list(user.token)).items).toHaveLength(1)
  })

  it('keeps the per-account cap under concurrent registrations from several sessions (LIMIT_REACHED)', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    await registerPasskey(t, user, authenticator)
    for (let i = 1; i < MAX_PASSKEYS_PER_USER - 2; i++)
      await registerPasskey(t, user, authenticator, { proof: { passkey: authenticator } })
    // Four more sessions (signed in with a passkey), each with a challenge of its own: two places
    // are left.
    const sessions = []
    for (let i = 0; i < 4; i++) {
      const start = await passwordlessOptions(t)
      sessions.push(
        (
          await signInWithPasskey(t, start.attempt_token, authenticator.assert(start.options))
        ).json().token as string,
      )
    }
    // Each proves the passkey in turn (one authenticator's counter moves with each answer); the
    // completions race.
    const pending = []
    for (const token of sessions)
      pending.push({
        token,
        options: await registrationOptions(t, token, DEFAULT_PASSWORD, { passkey: authenticator }),
      })
    const answers = await Promise.all(
      pending.map(({ token, options }) =>
        completeRegistration(t, token, authenticator.register(options)),
      ),
    )
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 201, 409, 409])
    expect(
      answers.filter((r) => r.statusCode === 409).every((r) => r.json().reason === 'LIMIT_REACHED'),
    ).toBe(true)
    expect((await list(user.token)).items).toHaveLength(MAX_PASSKEYS_PER_USER)
    const beyond = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/registration/options',
      headers: bearer(user.token),
      payload: {
        password: DEFAULT_PASSWORD,
        passkey: await passkeyProof(t, user.token, authenticator),
      },
    })
    expect(beyond.json()).toMatchObject({ code: 409, reason: 'LIMIT_REACHED' })
  })

  it('an API token can neither list passkeys nor register one (SESSION_REQUIRED)', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/auth/passkeys',
      headers: bearer(token),
    })
    expect(list.statusCode).toBe(403)
    expect(list.json().reason).toBe('SESSION_REQUIRED')
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/registration/options',
      headers: bearer(token),
      payload: { password: DEFAULT_PASSWORD },
    })
    expect(refused.json()).toMatchObject({ code: 403, reason: 'SESSION_REQUIRED' })
  })

  it('audits the registration without key material', async () => {
    const user = await createSignedInUser(t)
    const id = await registerPasskey(t, user, authenticatorFor(t), { name: 'Audited' })
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', id)
      .execute()
    expect(events.map((e) => e.action)).toEqual(['passkey.register'])
    expect(JSON.stringify(events)).not.toMatch(/public_key|credential_id/)
  })
})

describe('rename and delete', () => {
  it('rename needs no proof, even outside the re-authentication window; the name is display text', async () => {
    const user = await createSignedInUser(t)
    const id = await registerPasskey(t, user, authenticatorFor(t))
    await closeReauthenticationWindows(t, user.user.id)
    expect((await patch(user.token, id, { name: 'bad\u202Ename' })).json()).toMatchObject({
      reason: 'VALIDATION_FAILED',
    })
    const renamed = await patch(user.token, id, { name: '  Work laptop ' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toMatchObject({ id, name: 'Work laptop' })
    // An older client's password is accepted and ignored (not checked: there is nothing to prove).
    expect(
      (await patch(user.token, id, { name: 'Laptop', password: 'whatever it sends' })).statusCode,
    ).toBe(200)
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', id)
      .execute()
    expect(events.map((e) => e.action)).toContain('passkey.rename')
  })

  it("another user's passkey cannot be renamed, deleted or seen: 404", async () => {
    const owner = await createSignedInUser(t)
    const id = await registerPasskey(t, owner, authenticatorFor(t))
    const intruder = await createSignedInUser(t)
    expect(
      (await patch(intruder.token, id, { name: 'mine now', password: DEFAULT_PASSWORD })).json(),
    ).toMatchObject({
      code: 404,
      reason: 'NOT_FOUND',
    })
    expect((await remove(intruder.token, id, { password: DEFAULT_PASSWORD })).json()).toMatchObject(
      { code: 404, reason: 'NOT_FOUND' },
    )
    expect((await list(intruder.token)).items).toEqual([])
    expect((await list(owner.token)).items).toHaveLength(1)
    expect(
      (await patch(owner.token, 'not-an-id', { name: 'x', password: DEFAULT_PASSWORD })).statusCode,
    ).toBe(404)
  })

  it('delete needs the password; deleting the last second factor turns two-factor sign-in off and ends other sessions', async () => {
    const user = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const first = await registerPasskey(t, user, authenticator)
    const second = await registerPasskey(t, user, authenticator, {
      proof: { passkey: authenticator },
    })
    await closeReauthenticationWindows(t, user.user.id)
    expect((await remove(user.token, first, {})).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect((await remove(user.token, first, { password: 'wrong password' })).json()).toMatchObject({
      reason: 'INVALID_PASSWORD',
    })

    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect(mfaToken).toEqual(expect.any(String))
    expect((await remove(user.token, first, { password: DEFAULT_PASSWORD })).statusCode).toBe(204)
    expect((await remove(user.token, first, { password: DEFAULT_PASSWORD })).statusCode).toBe(404)
    // Still a second factor left.
    await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)

    const bystander = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/verify',
      payload: { mfa_token: mfaToken, code: '123456' },
    })
    expect(bystander.statusCode).toBe(401)
    // The last second factor: the same proof as disabling TOTP — the password and the factor now.
    expect((await remove(user.token, second, { password: DEFAULT_PASSWORD })).json()).toMatchObject(
      { code: 400, reason: 'SECOND_FACTOR_REQUIRED' },
    )
    const proof = await passkeyProof(t, user.token, authenticator)
    expect(
      (await remove(user.token, second, { password: DEFAULT_PASSWORD, passkey: proof })).statusCode,
    ).toBe(204)
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: DEFAULT_PASSWORD },
    })
    expect(signIn.json().token).toEqual(expect.any(String))
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('action', '=', 'passkey.delete')
      .where('actor_id', '=', user.user.id)
      .orderBy('at')
      .execute()
    expect(events.map((e) => JSON.parse(String(e.metadata)).last_factor)).toEqual([false, true])
    expect(JSON.parse(String(events[1]!.metadata)).proof).toBe('passkey')
  })

  it("an administrator's MFA reset removes the passkeys too", async () => {
    const user = await createSignedInUser(t)
    await registerPasskey(t, user, authenticatorFor(t))
    const { resetMfa } = await import('../mfa/service.js')
    await resetMfa(t.deps, null, user.user.id, { ip: null, userAgent: null }, 'cli')
    const again = await login(t, user.email, DEFAULT_PASSWORD)
    expect((await list(again.token)).items).toEqual([])
  })
})
