/**
 * Signing in with a passkey over HTTP — as the second factor and without a password — and every
 * way an answer is refused: replay, another origin or RP id, a lowered counter, an expired or used
 * challenge, missing user verification, and bursts against the attempt budgets.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
  verifyMfa,
} from '../../../test/helpers/factories.js'
import {
  authenticatorFor,
  mfaOptions,
  passwordlessOptions,
  registerPasskey,
  signInWithPasskey,
  verifyPasskeyMfa,
} from '../../../test/helpers/passkeys.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'

const t = useTestApp()

async function userWithPasskey(options: { backupEligible?: boolean } = {}) {
  const user = await createSignedInUser(t)
  const authenticator = authenticatorFor(t, options)
  const passkeyId = await registerPasskey(t, user, authenticator)
  return { ...user, authenticator, passkeyId }
}

const auditActions = async (userId: string) =>
  (
    await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', userId)
      .orderBy('at')
      .execute()
  ).map((e) => ({
    action: e.action,
    metadata: JSON.parse(String(e.metadata)) as Record<string, unknown>,
  }))

describe('as the second factor', () => {
  it('the password, then the passkey: a session, cookies, last use recorded, auth.login with method password+passkey', async () => {
    const user = await userWithPasskey()
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const options = await mfaOptions(t, mfaToken)
    expect(options.allowCredentials).toEqual([
      { id: user.authenticator.credentials[0]!.id, type: 'public-key', transports: ['internal'] },
    ])
    const response = await verifyPasskeyMfa(t, mfaToken, user.authenticator.assert(options))
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ user: { id: user.user.id }, token: expect.any(String) })
    expect(response.cookies.map((c) => c.name).sort()).toEqual(['csrf_token', 'device', 'token'])
    const listed = await t.app.inject({
      method: 'GET',
      url: '/api/auth/passkeys',
      headers: bearer(response.json().token),
    })
    expect(listed.json().items[0].last_used_at).toEqual(expect.any(String))
    const login = (await auditActions(user.user.id)).filter((e) => e.action === 'auth.login').at(-1)
    expect(login?.metadata).toMatchObject({
      method: 'password+passkey',
      passkey_id: user.passkeyId,
    })
    // The mfa_token is used up.
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/passkeys/mfa/options',
          payload: { mfa_token: mfaToken },
        })
      ).json(),
    ).toMatchObject({
      code: 401,
      reason: 'MFA_PENDING_INVALID',
    })
  })

  it('is offered beside TOTP: either completes the same sign-in', async () => {
    const user = await userWithPasskey()
    const { secret } = await enableMfa(t, user)
    const byCode = await verifyMfa(
      t,
      await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
      totpCode(secret, t.clock.now()),
    )
    expect(byCode.statusCode).toBe(200)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect(
      (
        await verifyPasskeyMfa(
          t,
          mfaToken,
          user.authenticator.assert(await mfaOptions(t, mfaToken)),
        )
      ).statusCode,
    ).toBe(200)
  })

  it('an account without a passkey gets 404 for the options; a bad mfa_token 401', async () => {
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/passkeys/mfa/options',
          payload: { mfa_token: mfaToken },
        })
      ).json(),
    ).toMatchObject({
      code: 404,
      reason: 'NOT_FOUND',
    })
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/passkeys/mfa/options',
          payload: { mfa_token: 'nope' },
        })
      ).json(),
    ).toMatchObject({
      code: 401,
      reason: 'MFA_PENDING_INVALID',
    })
  })

  it("refuses another account's passkey", async () => {
    const victim = await userWithPasskey()
    const attacker = await userWithPasskey()
    const mfaToken = await loginForMfaToken(t, victim.email, DEFAULT_PASSWORD)
    const response = await verifyPasskeyMfa(
      t,
      mfaToken,
      attacker.authenticator.assert(await mfaOptions(t, mfaToken)),
    )
    expect(response.json()).toMatchObject({ code: 401, reason: 'PASSKEY_VERIFICATION_FAILED' })
  })

  it('refuses a replayed assertion, another origin, another RP id, and a lowered counter — each with its reason', async () => {
    const user = await userWithPasskey()
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const refuse = async (
      overrides: Parameters<typeof user.authenticator.assert>[1],
      message: RegExp,
    ) => {
      const response = await verifyPasskeyMfa(
        t,
        mfaToken,
        user.authenticator.assert(await mfaOptions(t, mfaToken), overrides),
      )
      expect(response.statusCode).toBe(401)
      expect(response.json()).toMatchObject({ reason: 'PASSKEY_VERIFICATION_FAILED' })
      expect(response.json().message).toMatch(message)
    }
    await refuse({ origin: 'https://switchboard.test.evil.example' }, /origin/)
    await refuse({ rpId: 'evil.example' }, /RP id/)

    // A good sign-in moves the counter to 1 …
    const good = await mfaOptions(t, mfaToken)
    const answer = user.authenticator.assert(good, { counter: 5 })
    expect((await verifyPasskeyMfa(t, mfaToken, answer)).statusCode).toBe(200)
    // … its answer cannot be used again (the challenge and the mfa_token are spent) …
    expect((await verifyPasskeyMfa(t, mfaToken, answer)).json()).toMatchObject({
      code: 401,
      reason: 'MFA_PENDING_INVALID',
    })
    const next = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    await mfaOptions(t, next)
    expect((await verifyPasskeyMfa(t, next, answer)).json()).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
    })
    // … and a counter at or below the stored 5 says the passkey was copied.
    const lowered = await verifyPasskeyMfa(
      t,
      next,
      user.authenticator.assert(await mfaOptions(t, next), { counter: 3 }),
    )
    expect(lowered.json()).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringMatching(/counter/),
    })
  })

  it('a challenge is single use and expires after 5 minutes: PASSKEY_CHALLENGE_EXPIRED', async () => {
    const user = await userWithPasskey()
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const options = await mfaOptions(t, mfaToken)
    const wrong = await verifyPasskeyMfa(
      t,
      mfaToken,
      user.authenticator.assert(options, { origin: 'https://evil.example' }),
    )
    expect(wrong.json().reason).toBe('PASSKEY_VERIFICATION_FAILED')
    // The refused answer used the challenge up: the right one for it now finds nothing.
    const reused = await verifyPasskeyMfa(t, mfaToken, user.authenticator.assert(options))
    expect(reused.json()).toMatchObject({ code: 401, reason: 'PASSKEY_CHALLENGE_EXPIRED' })

    const fresh = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const late = await mfaOptions(t, fresh)
    t.clock.advance(4 * 60)
    const token = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const lateOptions = await mfaOptions(t, token)
    t.clock.advance(5 * 60 + 1)
    expect(
      (await verifyPasskeyMfa(t, fresh, user.authenticator.assert(late))).json(),
    ).toMatchObject({ code: 401, reason: 'MFA_PENDING_INVALID' })
    expect(
      (await verifyPasskeyMfa(t, token, user.authenticator.assert(lateOptions))).json(),
    ).toMatchObject({
      code: 401,
      reason: 'MFA_PENDING_INVALID',
    })
    const passwordless = await passwordlessOptions(t)
    t.clock.advance(5 * 60 + 1)
    expect(
      (
        await signInWithPasskey(
          t,
          passwordless.attempt_token,
          user.authenticator.assert(passwordless.options),
        )
      ).json(),
    ).toMatchObject({
      code: 401,
      reason: 'PASSKEY_CHALLENGE_EXPIRED',
    })
  })

  it('a concurrent burst of wrong answers for one mfa_token stays within its budget of 5', async () => {
    const user = await userWithPasskey()
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    const options = await mfaOptions(t, mfaToken)
    const burst = await Promise.all(
      Array.from({ length: 12 }, () =>
        verifyPasskeyMfa(
          t,
          mfaToken,
          user.authenticator.assert(options, { origin: 'https://evil.example' }),
        ),
      ),
    )
    const evaluated = burst.filter((r) => r.statusCode === 401)
    expect(evaluated.length).toBeLessThanOrEqual(5)
    expect(burst.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(7)
    for (const r of burst.filter((r) => r.statusCode === 429))
      expect(r.json()).toMatchObject({ reason: 'RATE_LIMITED', retryAfter: expect.any(Number) })
    // Spent: even the right answer is refused for this mfa_token until it expires.
    const right = await verifyPasskeyMfa(
      t,
      mfaToken,
      user.authenticator.assert(await mfaOptions(t, mfaToken)),
    )
    expect(right.statusCode).toBe(429)
    const failures = (await auditActions(user.user.id)).filter(
      (e) => e.action === 'auth.passkey_failed',
    )
    expect(failures.length).toBe(evaluated.length + 0)
  })

  it('wrong passkey answers have an account budget of 10 per 15 minutes of their own (not the codes’: test/security/passkey-lockout.test.ts)', async () => {
    const user = await userWithPasskey()
    for (let round = 0; round < 2; round++) {
      const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
      for (let i = 0; i < 5; i++) {
        const r = await verifyPasskeyMfa(
          t,
          mfaToken,
          user.authenticator.assert(await mfaOptions(t, mfaToken), { rpId: 'evil.example' }),
        )
        expect(r.statusCode).toBe(401)
      }
    }
    const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect(
      (
        await verifyPasskeyMfa(
          t,
          mfaToken,
          user.authenticator.assert(await mfaOptions(t, mfaToken)),
        )
      ).statusCode,
    ).toBe(429)
    t.clock.advance(15 * 60 + 1)
    const later = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
    expect(
      (await verifyPasskeyMfa(t, later, user.authenticator.assert(await mfaOptions(t, later))))
        .statusCode,
    ).toBe(200)
  })
})

describe('without a password', () => {
  it('a discoverable passkey with user verification signs in: auth.login with method passkey', async () => {
    const user = await userWithPasskey({ backupEligible: true })
    const { attempt_token, options } = await passwordlessOptions(t)
    expect(options).toMatchObject({ rpId: 'switchboard.test', userVerification: 'required' })
    expect((options as { allowCredentials?: unknown[] }).allowCredentials ?? []).toEqual([])
    const response = await signInWithPasskey(t, attempt_token, user.authenticator.assert(options))
    expect(response.statusCode).toBe(200)
    expect(response.json().user.id).toBe(user.user.id)
    const login = (await auditActions(user.user.id)).filter((e) => e.action === 'auth.login').at(-1)
    expect(login?.metadata).toMatchObject({ method: 'passkey', passkey_id: user.passkeyId })
    // The attempt is spent: its answer cannot be replayed.
    expect(
      (await signInWithPasskey(t, attempt_token, user.authenticator.assert(options))).json(),
    ).toMatchObject({
      code: 401,
      reason: 'PASSKEY_CHALLENGE_EXPIRED',
    })
  })

  it('refuses an answer without user verification', async () => {
    const user = await userWithPasskey()
    const { attempt_token, options } = await passwordlessOptions(t)
    const response = await signInWithPasskey(
      t,
      attempt_token,
      user.authenticator.assert(options, { userVerified: false }),
    )
    expect(response.json()).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringMatching(/verif/),
    })
    const failed = (await auditActions(user.user.id))
      .filter((e) => e.action === 'auth.passkey_failed')
      .at(-1)
    expect(failed?.metadata).toMatchObject({
      reason: 'PASSKEY_VERIFICATION_FAILED',
      mode: 'passwordless',
    })
  })

  it("refuses a user handle that is not the passkey's account, an unknown passkey and a changed backup eligibility", async () => {
    const user = await userWithPasskey()
    const other = await userWithPasskey()
    const forged = await passwordlessOptions(t)
    const answer = user.authenticator.assert(forged.options)
    answer.response.userHandle = other.authenticator.credentials[0]!.userHandle
    expect((await signInWithPasskey(t, forged.attempt_token, answer)).json()).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
    })

    const unknown = await passwordlessOptions(t)
    const stranger = authenticatorFor(t)
    stranger.register({
      challenge: 'x',
      rp: { id: 'switchboard.test' },
      user: { id: Buffer.from('nobody').toString('base64url') },
    })
    expect(
      (await signInWithPasskey(t, unknown.attempt_token, stranger.assert(unknown.options))).json(),
    ).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
    })

    const flipped = await passwordlessOptions(t)
    expect(
      (
        await signInWithPasskey(
          t,
          flipped.attempt_token,
          user.authenticator.assert(flipped.options, { backupEligible: true }),
        )
      ).json(),
    ).toMatchObject({
      code: 401,
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringMatching(/backup/),
    })
  })

  it('a disabled account cannot sign in with its passkey', async () => {
    const user = await userWithPasskey()
    await t.deps.db
      .updateTable('users')
      .set({ disabled: true })
      .where('id', '=', user.user.id)
      .execute()
    const { attempt_token, options } = await passwordlessOptions(t)
    expect(
      (await signInWithPasskey(t, attempt_token, user.authenticator.assert(options))).statusCode,
    ).toBe(401)
  })

  it('a concurrent burst of answers for one attempt: exactly one is evaluated against its challenge', async () => {
    const user = await userWithPasskey()
    const { attempt_token, options } = await passwordlessOptions(t)
    const burst = await Promise.all(
      Array.from({ length: 8 }, () =>
        signInWithPasskey(
          t,
          attempt_token,
          user.authenticator.assert(options, { userVerified: false }),
        ),
      ),
    )
    const reasons = burst.map((r) => r.json().reason)
    expect(reasons.filter((r) => r === 'PASSKEY_VERIFICATION_FAILED')).toHaveLength(1)
    expect(
      reasons.every((r) =>
        ['PASSKEY_VERIFICATION_FAILED', 'PASSKEY_CHALLENGE_EXPIRED', 'RATE_LIMITED'].includes(r),
      ),
    ).toBe(true)
    expect(burst.filter((r) => r.statusCode !== 429).length).toBeLessThanOrEqual(5)
  })
})
