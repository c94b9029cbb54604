/**
 * A passkey signs in on its own, so adding one must not be possible with only a
 * session and the password of an account that has a second factor. Observed before the fix: with
 * the session and password of a TOTP account, register a passkey (201), the owner changes the
 * password, the intruder signs in without a password — no TOTP ever asked. Now the factor is asked
 * for (a code or a registered passkey's answer); an account without a password proves a sign-in of
 * the last 5 minutes; deleting the last second factor needs the factor too.
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
import {
  authenticatorFor,
  completeRegistration,
  passkeyProof,
  passwordlessOptions,
  registerPasskey,
  registrationOptions,
  signInWithPasskey,
} from '../helpers/passkeys.js'
import { totpCode } from '../helpers/rfc6238.js'

const t = useTestApp()

const begin = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/registration/options',
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
const passkeyCount = async (userId: string) =>
  (await t.deps.db.selectFrom('passkeys').select('id').where('user_id', '=', userId).execute())
    .length

describe('adding a passkey to an account with TOTP', () => {
  it('the reported attack: the session and the password alone are refused (SECOND_FACTOR_REQUIRED); the intruder never gets a passkey', async () => {
    const owner = await createSignedInUser(t)
    const { secret } = await enableMfa(t, owner)
    // The intruder has a session of the owner's, older than its re-authentication window, and knows
    // the password.
    await closeReauthenticationWindows(t, owner.user.id)
    const refused = await begin(owner.token, { password: DEFAULT_PASSWORD })
    expect(refused.json()).toMatchObject({ code: 400, reason: 'SECOND_FACTOR_REQUIRED' })
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, code: '000000' })).json(),
    ).toMatchObject({ code: 400, reason: 'INVALID_CODE' })
    // No registration challenge exists for the session: a made-up answer finds nothing.
    const intruder = authenticatorFor(t)
    const forged = intruder.register({
      challenge: 'bm90LWlzc3VlZA',
      rp: { id: 'switchboard.test' },
      user: { id: Buffer.from(owner.user.id).toString('base64url') },
    })
    expect((await completeRegistration(t, owner.token, forged)).json()).toMatchObject({
      code: 409,
      reason: 'PASSKEY_CHALLENGE_EXPIRED',
    })
    expect(await passkeyCount(owner.user.id)).toBe(0)
    const start = await passwordlessOptions(t)
    expect(
      (await signInWithPasskey(t, start.attempt_token, intruder.assert(start.options))).statusCode,
    ).toBe(401)

    // The owner, with the code, adds one.
    const id = await registerPasskey(t, owner, authenticatorFor(t), {
      proof: { code: totpCode(secret, t.clock.now()) },
    })
    expect(id).toEqual(expect.any(String))
    // The code is spent: the same one cannot prove a second addition.
    expect(
      (
        await begin(owner.token, {
          password: DEFAULT_PASSWORD,
          code: totpCode(secret, t.clock.now()),
        })
      ).json(),
    ).toMatchObject({
      reason: 'INVALID_CODE',
    })
  })

  it('a backup code proves it once; the password is still checked first', async () => {
    const owner = await createSignedInUser(t)
    const { backupCodes } = await enableMfa(t, owner)
    await closeReauthenticationWindows(t, owner.user.id)
    expect((await begin(owner.token, { code: backupCodes[0]! })).json()).toMatchObject({
      code: 400,
      reason: 'PASSWORD_REQUIRED',
    })
    expect(
      (await begin(owner.token, { password: 'not the password', code: backupCodes[0]! })).json(),
    ).toMatchObject({ reason: 'INVALID_PASSWORD' })
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, code: backupCodes[0]! })).statusCode,
    ).toBe(200)
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, code: backupCodes[0]! })).json(),
    ).toMatchObject({ reason: 'INVALID_CODE' })
  })

  it('two concurrent beginnings with one code: exactly one is granted', async () => {
    const owner = await createSignedInUser(t)
    const { secret } = await enableMfa(t, owner)
    const code = totpCode(secret, t.clock.now())
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => begin(owner.token, { password: DEFAULT_PASSWORD, code })),
    )
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400])
  })
})

describe('adding a passkey to an account with a passkey', () => {
  it("needs an answer of a registered passkey, bound to this session's proof challenge", async () => {
    const owner = await createSignedInUser(t)
    const mine = authenticatorFor(t)
    await registerPasskey(t, owner, mine)
    await closeReauthenticationWindows(t, owner.user.id)
    expect((await begin(owner.token, { password: DEFAULT_PASSWORD })).json()).toMatchObject({
      code: 400,
      reason: 'SECOND_FACTOR_REQUIRED',
    })

    // Another account's passkey is not a proof for this one.
    const stranger = await createSignedInUser(t)
    const theirs = authenticatorFor(t)
    await registerPasskey(t, stranger, theirs)
    const options = (
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/passkeys/proof/options',
        headers: bearer(owner.token),
      })
    ).json().options
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([
      mine.credentials[0]!.id,
    ])
    expect(
      (
        await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: theirs.assert(options) })
      ).json(),
    ).toMatchObject({
      code: 400,
      reason: 'PASSKEY_VERIFICATION_FAILED',
    })

    // A proof made in another session (of the same account) does not count in this one.
    const other = await openSessionFor(t, owner.user.id)
    const elsewhere = await passkeyProof(t, other, mine)
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: elsewhere })).json(),
    ).toMatchObject({
      code: 409,
      reason: 'PASSKEY_CHALLENGE_EXPIRED',
    })

    // The right one, once.
    const proof = await passkeyProof(t, owner.token, mine)
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: proof })).statusCode,
    ).toBe(200)
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: proof })).json(),
    ).toMatchObject({
      code: 409,
      reason: 'PASSKEY_CHALLENGE_EXPIRED',
    })
    // Both kinds at once are refused: one proof, named.
    expect(
      (
        await begin(owner.token, {
          password: DEFAULT_PASSWORD,
          code: '123456',
          passkey: await passkeyProof(t, owner.token, mine),
        })
      ).json(),
    ).toMatchObject({ code: 400, reason: 'VALIDATION_FAILED', details: [{ field: 'passkey' }] })
  })

  it('two concurrent beginnings with one passkey answer: exactly one is granted, the others find the challenge used', async () => {
    const owner = await createSignedInUser(t)
    const mine = authenticatorFor(t)
    await registerPasskey(t, owner, mine)
    const proof = await passkeyProof(t, owner.token, mine)
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => begin(owner.token, { password: DEFAULT_PASSWORD, passkey: proof })),
    )
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409])
    expect(
      answers
        .filter((r) => r.statusCode === 409)
        .every((r) => r.json().reason === 'PASSKEY_CHALLENGE_EXPIRED'),
    ).toBe(true)
  })

  it('refused passkey proofs have their own budget: after 10 the 11th is 429, and a TOTP code still proves it', async () => {
    const owner = await createSignedInUser(t)
    const mine = authenticatorFor(t)
    await registerPasskey(t, owner, mine)
    const { secret } = await enableMfa(t, owner)
    for (let i = 0; i < 10; i++) {
      const wrong = await passkeyProof(t, owner.token, mine, { origin: 'https://evil.example' })
      expect(
        (await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: wrong })).statusCode,
      ).toBe(400)
    }
    const right = await passkeyProof(t, owner.token, mine)
    expect(
      (await begin(owner.token, { password: DEFAULT_PASSWORD, passkey: right })).json(),
    ).toMatchObject({ code: 429, reason: 'RATE_LIMITED' })
    expect(
      (
        await begin(owner.token, {
          password: DEFAULT_PASSWORD,
          code: totpCode(secret, t.clock.now()),
        })
      ).statusCode,
    ).toBe(200)
  })

  it('the proof challenge needs a session with a passkey: 404 without one, 403 for an API token', async () => {
    const user = await createSignedInUser(t)
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/proof/options',
      headers: bearer(user.token),
    })
    expect(none.json()).toMatchObject({ code: 404, reason: 'NOT_FOUND' })
    await registerPasskey(t, user, authenticatorFor(t))
    const { token } = await createApiTokenFor(t, user.token)
    const byToken = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/proof/options',
      headers: bearer(token),
    })
    expect(byToken.json()).toMatchObject({ code: 403, reason: 'SESSION_REQUIRED' })
  })
})

describe('an account without a password (signed in through an identity provider)', () => {
  it('proves itself by a sign-in of the last 5 minutes (RECENT_SIGN_IN_REQUIRED after), and by its factor once it has one', async () => {
    const person = await createUser(t, { password: null })
    const old = await openSessionFor(t, person.user.id)
    t.clock.advance(5 * 60 + 1)
    expect((await begin(old, {})).json()).toMatchObject({
      code: 403,
      reason: 'RECENT_SIGN_IN_REQUIRED',
    })

    const fresh = await openSessionFor(t, person.user.id)
    const authenticator = authenticatorFor(t)
    await registerPasskey(t, { token: fresh, password: null }, authenticator)
    // A second passkey: a recent sign-in is not enough any more, the registered passkey is asked
    // for.
    expect((await begin(fresh, {})).json()).toMatchObject({
      code: 400,
      reason: 'SECOND_FACTOR_REQUIRED',
    })
    expect(
      (await begin(fresh, { passkey: await passkeyProof(t, fresh, authenticator) })).statusCode,
    ).toBe(200)
    // With the factor but an old sign-in: still refused.
    t.clock.advance(5 * 60 + 1)
    expect(
      (await begin(fresh, { passkey: await passkeyProof(t, fresh, authenticator) })).json(),
    ).toMatchObject({
      code: 403,
      reason: 'RECENT_SIGN_IN_REQUIRED',
    })
  })
})

describe('deleting the last second factor', () => {
  it('needs the factor now (as disabling TOTP does); a passkey beside TOTP does not', async () => {
    const owner = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const only = await registerPasskey(t, owner, authenticator)
    await closeReauthenticationWindows(t, owner.user.id)
    expect((await remove(owner.token, only, { password: DEFAULT_PASSWORD })).json()).toMatchObject({
      code: 400,
      reason: 'SECOND_FACTOR_REQUIRED',
    })
    const wrong = await passkeyProof(t, owner.token, authenticator, { rpId: 'evil.example' })
    expect(
      (await remove(owner.token, only, { password: DEFAULT_PASSWORD, passkey: wrong })).json(),
    ).toMatchObject({
      code: 400,
      reason: 'PASSKEY_VERIFICATION_FAILED',
    })
    expect(await passkeyCount(owner.user.id)).toBe(1)

    // With TOTP on as well, the passkey is not the last factor: the password is enough.
    const withTotp = await createSignedInUser(t)
    const key = authenticatorFor(t)
    const passkey = await registerPasskey(t, withTotp, key)
    await enableMfa(t, withTotp)
    expect((await remove(withTotp.token, passkey, { password: DEFAULT_PASSWORD })).statusCode).toBe(
      204,
    )

    expect(
      (
        await remove(owner.token, only, {
          password: DEFAULT_PASSWORD,
          passkey: await passkeyProof(t, owner.token, authenticator),
        })
      ).statusCode,
    ).toBe(204)
  })

  it('two concurrent deletions of the last two passkeys with the password alone: one succeeds, the other needs the factor', async () => {
    const owner = await createSignedInUser(t)
    const authenticator = authenticatorFor(t)
    const first = await registerPasskey(t, owner, authenticator)
    const second = await registerPasskey(t, owner, authenticator, {
      proof: { passkey: authenticator },
    })
    await closeReauthenticationWindows(t, owner.user.id)
    const answers = await Promise.all(
      [first, second].map((id) => remove(owner.token, id, { password: DEFAULT_PASSWORD })),
    )
    expect(answers.map((r) => r.statusCode).sort()).toEqual([204, 400])
    expect(answers.find((r) => r.statusCode === 400)!.json()).toMatchObject({
      reason: 'SECOND_FACTOR_REQUIRED',
    })
    expect(await passkeyCount(owner.user.id)).toBe(1)
  })
})

describe('registration options still work for an account with no factor', () => {
  it('the password alone, as before (the first factor is enrolment)', async () => {
    const user = await createSignedInUser(t)
    expect((await registrationOptions(t, user.token, DEFAULT_PASSWORD)).challenge).toEqual(
      expect.any(String),
    )
  })
})
