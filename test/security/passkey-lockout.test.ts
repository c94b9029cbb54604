/**
 * A stranger who knows only a victim's passkey credential id (no secret) sends
 * forged answers to the sign-in without a password. They must never charge the victim's account:
 * her TOTP code and her real passkey keep working. The forger is still bounded — by the attempt
 * (5 refusals) and by the sign-in failures of his IP (100 per 15 minutes). Passkey refusals at the
 * second step have a budget of their own and never block TOTP or backup codes either.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
  verifyMfa,
} from '../helpers/factories.js'
import {
  authenticatorFor,
  mfaOptions,
  registerPasskey,
  verifyPasskeyMfa,
} from '../helpers/passkeys.js'
import { totpCode } from '../helpers/rfc6238.js'
import type { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js'

const t = useTestApp()

async function passwordlessStart(
  ip: string,
): Promise<{ attempt_token: string; options: { challenge: string } }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/login/options',
    remoteAddress: ip,
  })
  expect(response.statusCode).toBe(200)
  return response.json()
}

function passwordless(ip: string, attemptToken: string, credential: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/login',
    payload: { attempt_token: attemptToken, credential },
    remoteAddress: ip,
  })
}

/** The victim: a passkey and TOTP. */
async function victim() {
  const user = await createSignedInUser(t)
  const authenticator = authenticatorFor(t)
  await registerPasskey(t, user, authenticator)
  const { secret, backupCodes } = await enableMfa(t, user)
  return { ...user, authenticator, secret, backupCodes, credential: authenticator.credentials[0]! }
}

/**
 * The forger's answer: the victim's credential id and user handle, signed with a key of his own.
 */
function forgedAnswer(
  forger: SoftwareAuthenticator,
  target: Awaited<ReturnType<typeof victim>>,
  options: { challenge: string },
) {
  const own = forger.credentials[0]!
  return forger.assert(options, {
    credential: { ...own, id: target.credential.id, userHandle: target.credential.userHandle },
  })
}

function forgerFor(): SoftwareAuthenticator {
  const forger = authenticatorFor(t)
  forger.register({
    challenge: 'x',
    rp: { id: 'switchboard.test' },
    user: { id: Buffer.from('forger').toString('base64url') },
  })
  return forger
}

/**
 * Sends `count` forged answers from `ip`, each to an attempt of its own (as a forger would, to get
 * past the attempt's 5).
 */
async function forge(
  ip: string,
  forger: SoftwareAuthenticator,
  target: Awaited<ReturnType<typeof victim>>,
  count: number,
) {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const start = await passwordlessStart(ip)
    statuses.push(
      (await passwordless(ip, start.attempt_token, forgedAnswer(forger, target, start.options)))
        .statusCode,
    )
  }
  return statuses
}

async function victimSignsIn(target: Awaited<ReturnType<typeof victim>>, ip: string) {
  // Her TOTP code at the second step …
  t.clock.advance(30)
  const byCode = await verifyMfa(
    t,
    await loginForMfaToken(t, target.email, DEFAULT_PASSWORD),
    totpCode(target.secret, t.clock.now()),
  )
  expect(byCode.statusCode).toBe(200)
  // … a backup code …
  const byBackup = await verifyMfa(
    t,
    await loginForMfaToken(t, target.email, DEFAULT_PASSWORD),
    target.backupCodes.pop()!,
  )
  expect(byBackup.statusCode).toBe(200)
  // … her passkey at the second step …
  const mfaToken = await loginForMfaToken(t, target.email, DEFAULT_PASSWORD)
  expect(
    (
      await verifyPasskeyMfa(
        t,
        mfaToken,
        target.authenticator.assert(await mfaOptions(t, mfaToken)),
      )
    ).statusCode,
  ).toBe(200)
  // … and her passkey without a password.
  const start = await passwordlessStart(ip)
  const response = await passwordless(
    ip,
    start.attempt_token,
    target.authenticator.assert(start.options),
  )
  expect(response.statusCode).toBe(200)
  expect(response.json().user.id).toBe(target.user.id)
}

describe('forged passwordless answers naming a victim’s credential id', () => {
  it('12 refusals charge nothing of hers: her TOTP code, a backup code and her passkey still succeed (no 429)', async () => {
    const target = await victim()
    const statuses = await forge('203.0.113.10', forgerFor(), target, 12)
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 401))
    await victimSignsIn(target, '198.51.100.20')
  })

  it('a concurrent burst of 30 forged answers over 6 attempts: each attempt evaluates at most 5, and she still signs in', async () => {
    const target = await victim()
    const forger = forgerFor()
    const ip = '203.0.113.11'
    const burst = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const start = await passwordlessStart(ip)
        return Promise.all(
          Array.from({ length: 5 }, () =>
            passwordless(ip, start.attempt_token, forgedAnswer(forger, target, start.options)),
          ),
        )
      }),
    )
    const statuses = burst.flat().map((r) => r.statusCode)
    expect(statuses.every((s) => s === 401)).toBe(true)
    // One challenge per attempt: one answer of each is checked against it, the others find it used.
    expect(
      burst.flat().filter((r) => r.json().reason === 'PASSKEY_VERIFICATION_FAILED'),
    ).toHaveLength(6)
    await victimSignsIn(target, '198.51.100.21')
  })

  it('the per-IP budget (100 sign-in failures per 15 minutes) stops the forger, not the victim', async () => {
    const target = await victim()
    const forger = forgerFor()
    const ip = '203.0.113.12'
    const statuses = await forge(ip, forger, target, 105)
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(100)).toEqual([429, 429, 429, 429, 429])
    // Spent for this address: even a real passkey from it waits; the victim elsewhere does not.
    const start = await passwordlessStart(ip)
    const blocked = await passwordless(
      ip,
      start.attempt_token,
      target.authenticator.assert(start.options),
    )
    expect(blocked.json()).toMatchObject({
      code: 429,
      reason: 'RATE_LIMITED',
      retryAfter: expect.any(Number),
    })
    await victimSignsIn(target, '198.51.100.22')
    t.clock.advance(15 * 60 + 1)
    const later = await passwordlessStart(ip)
    expect(
      (await passwordless(ip, later.attempt_token, target.authenticator.assert(later.options)))
        .statusCode,
    ).toBe(200)
  })
})

describe('passkey refusals at the second step', () => {
  it('have their own account budget of 10: the 11th passkey answer is 429, her TOTP and backup codes still succeed', async () => {
    const target = await victim()
    for (let round = 0; round < 2; round++) {
      const mfaToken = await loginForMfaToken(t, target.email, DEFAULT_PASSWORD)
      for (let i = 0; i < 5; i++) {
        const r = await verifyPasskeyMfa(
          t,
          mfaToken,
          target.authenticator.assert(await mfaOptions(t, mfaToken), { rpId: 'evil.example' }),
        )
        expect(r.statusCode).toBe(401)
      }
    }
    const mfaToken = await loginForMfaToken(t, target.email, DEFAULT_PASSWORD)
    expect(
      (
        await verifyPasskeyMfa(
          t,
          mfaToken,
          target.authenticator.assert(await mfaOptions(t, mfaToken)),
        )
      ).statusCode,
    ).toBe(429)
    t.clock.advance(30)
    expect((await verifyMfa(t, mfaToken, totpCode(target.secret, t.clock.now()))).statusCode).toBe(
      200,
    )
    expect(
      (
        await verifyMfa(
          t,
          await loginForMfaToken(t, target.email, DEFAULT_PASSWORD),
          target.backupCodes[0]!,
        )
      ).statusCode,
    ).toBe(200)
  })
})
