/**
 * docs/API.md#two-factor-authentication replay protection: a TOTP code accepted once is never
 * accepted again.
 */
import { describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../helpers/app.js'
import {
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
  verifyMfa,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'

const t = useTestApp()

describe('TOTP replay', () => {
  it('refuses a code that was already accepted, and any code for an earlier step', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const code = totpCode(secret, t.clock.now())
    expect(
      (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), code))
        .statusCode,
    ).toBe(200)

    const replay = await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), code)
    expect(replay.statusCode).toBe(401)
    expect(replay.json().reason).toBe('INVALID_CODE')

    // The previous step's code is still inside the ±1 window, but older than the accepted one.
    const previous = totpCode(secret, t.clock.now(), -1)
    expect(
      (await verifyMfa(t, await loginForMfaToken(t, user.email, DEFAULT_PASSWORD), previous)).json()
        .reason,
    ).toBe('INVALID_CODE')

    t.clock.advance(30)
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

  it('the code that confirmed enrollment cannot complete a sign-in', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    t.clock.advance(-30) // back to the step whose code confirmed the enrollment
    try {
      const response = await verifyMfa(
        t,
        await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
        totpCode(secret, t.clock.now()),
      )
      expect(response.json().reason).toBe('INVALID_CODE')
    } finally {
      t.clock.advance(30)
    }
  })

  it('accepts exactly one of two concurrent uses of one code', async () => {
    const user = await createSignedInUser(t)
    const { secret } = await enableMfa(t, user)
    const [a, b] = [
      await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
      await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
    ]
    const code = totpCode(secret, t.clock.now())
    const results = await Promise.all([verifyMfa(t, a, code), verifyMfa(t, b, code)])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401])
  })

  it('holds across two instances sharing the database', async () => {
    const peer = await startPeerInstance(t)
    try {
      const user = await createSignedInUser(t)
      const { secret } = await enableMfa(t, user)
      const code = totpCode(secret, t.clock.now())
      const onA = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
      const onB = (
        await peer.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: user.email, password: DEFAULT_PASSWORD },
        })
      ).json().mfa_token
      const results = await Promise.all([
        verifyMfa(t, onA, code),
        verifyMfa(t, onB, code, peer.app),
      ])
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401])
      const again = await verifyMfa(
        t,
        await loginForMfaToken(t, user.email, DEFAULT_PASSWORD),
        code,
        peer.app,
      )
      expect(again.json().reason).toBe('INVALID_CODE')
    } finally {
      await peer.close()
    }
  })
})
