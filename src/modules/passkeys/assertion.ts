/**
 * Checking a passkey's assertion (WebAuthn §7.2) — at the sign-in second step, for a sign-in
 * without a password, and as the proof an account change asks for (proof.ts). The ceremony's
 * challenge is taken (single use) before anything is verified, so a replayed or concurrent second
 * use of it finds nothing. The call runs inside the caller's
 * attempt budget: it never throws for a refusal, it returns it.
 */
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import {
  consumeChallenge,
  findPasskeyByCredentialId,
  recordPasskeyUse,
  type ChallengePurpose,
  type PasskeyRecord,
} from './repo.js'
import {
  base64UrlToText,
  COUNTER_WENT_BACKWARDS,
  failureMessage,
  relyingParty,
  webauthn,
} from './webauthn.js'

export type AssertionOutcome =
  | { ok: true; passkey: PasskeyRecord }
  | {
      ok: false
      reason: 'PASSKEY_CHALLENGE_EXPIRED' | 'PASSKEY_VERIFICATION_FAILED'
      message?: string
    }

export interface AssertionCheck {
  purpose: Extract<ChallengePurpose, 'mfa' | 'passwordless' | 'proof'>
  binding: string
  credential: AuthenticationResponseJSON
  /**
   * The account the assertion must belong to (the second step knows it; a passwordless sign-in does
   * not).
   */
  userId: string | null
  /** Passwordless sign-in: the authenticator must have verified the person (PIN or biometrics). */
  requireUserVerification: boolean
}

const UNKNOWN_PASSKEY = 'This passkey is not registered for an account here.'

export async function verifyAssertion(
  deps: Deps,
  check: AssertionCheck,
): Promise<AssertionOutcome> {
  const now = deps.clock.now().toISOString()
  const taken = await consumeChallenge(deps.db, check.purpose, check.binding, now)
  if (taken === null) return { ok: false, reason: 'PASSKEY_CHALLENGE_EXPIRED' }

  const passkey = await findPasskeyByCredentialId(deps.db, check.credential.id)
  const owner = check.userId ?? taken.user_id
  if (passkey === null || (owner !== null && passkey.user_id !== owner)) {
    return { ok: false, reason: 'PASSKEY_VERIFICATION_FAILED', message: UNKNOWN_PASSKEY }
  }
  // A discoverable credential names its account (the user handle we registered: the user id).
  const handle = check.credential.response.userHandle
  if (handle !== undefined && base64UrlToText(handle) !== passkey.user_id) {
    return { ok: false, reason: 'PASSKEY_VERIFICATION_FAILED', message: UNKNOWN_PASSKEY }
  }

  const rp = relyingParty(deps.config)
  const { verifyAuthenticationResponse } = await webauthn()
  let info: Awaited<ReturnType<typeof verifyAuthenticationResponse>>['authenticationInfo']
  try {
    const result = await verifyAuthenticationResponse({
      response: check.credential,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
      },
      requireUserVerification: check.requireUserVerification,
    })
    if (!result.verified) return { ok: false, reason: 'PASSKEY_VERIFICATION_FAILED' }
    info = result.authenticationInfo
  } catch (error) {
    // The library refuses by throwing (origin, RP id, challenge, counter, user verification,
    // signature).
    return { ok: false, reason: 'PASSKEY_VERIFICATION_FAILED', message: failureMessage(error) }
  }

  // Backup eligibility is fixed when a credential is made (WebAuthn §6.1.3): a change means it is
  // not the same one.
  if ((info.credentialDeviceType === 'multiDevice') !== passkey.backup_eligible) {
    return {
      ok: false,
      reason: 'PASSKEY_VERIFICATION_FAILED',
      message: "The passkey's backup eligibility changed; it is not the registered one.",
    }
  }
  const recorded = await recordPasskeyUse(deps.db, passkey.id, {
    previousCounter: passkey.counter,
    counter: info.newCounter,
    backedUp: info.credentialBackedUp,
    at: now,
  })
  if (!recorded)
    return { ok: false, reason: 'PASSKEY_VERIFICATION_FAILED', message: COUNTER_WENT_BACKWARDS }
  return {
    ok: true,
    passkey: {
      ...passkey,
      counter: info.newCounter,
      backed_up: info.credentialBackedUp,
      last_used_at: now,
    },
  }
}
