/**
 * The WebAuthn library (@simplewebauthn/server) behind a small adapter: the relying party this
 * instance is, and the library's refusals turned into our reasons. The library takes longer to
 * import than Fastify itself, so it is loaded by the first passkey request, not at start-up
 * (docs/decisions/0002-start-up-footprint.md).
 */
import type * as SimpleWebAuthn from '@simplewebauthn/server'
import type { Config } from '../../config.js'
import { AppError } from '../../errors.js'

let library: Promise<typeof SimpleWebAuthn> | undefined
export function webauthn(): Promise<typeof SimpleWebAuthn> {
  return (library ??= import('@simplewebauthn/server'))
}

export interface RelyingParty {
  /** The host name of PUBLIC_URL: browsers bind every credential to it (WebAuthn §5.1.3 rpId). */
  id: string
  /** The origin of PUBLIC_URL: the only origin whose ceremonies are accepted. */
  origin: string
  name: string
}

export function relyingParty(config: Pick<Config, 'publicUrl' | 'mfaIssuer'>): RelyingParty {
  const url = new URL(config.publicUrl)
  return { id: url.hostname, origin: url.origin, name: config.mfaIssuer }
}

/** How long a ceremony's challenge lives, and the timeout the browser is given for it. */
export const CHALLENGE_TTL_SECONDS = 5 * 60

/** ES256, EdDSA, RS256: what authenticators in use sign with. */
export const SUPPORTED_ALGORITHMS = [-7, -8, -257]

/**
 * The library's refusals are plain errors with English text; the client gets one reason and a
 * message naming the check that failed (none of them is a secret, and "wrong origin" helps an
 * operator who set PUBLIC_URL wrong). Anything unrecognised is the generic refusal.
 */
export const COUNTER_WENT_BACKWARDS =
  "The passkey's signature counter went backwards; the passkey may have been copied."

const CHECKS: Array<[RegExp, string]> = [
  [/origin/i, 'The passkey answered for another website (origin).'],
  [/RP ?ID/i, 'The passkey answered for another relying party (RP id).'],
  [/challenge/i, 'The passkey answered another request (challenge).'],
  [/counter/i, COUNTER_WENT_BACKWARDS],
  [
    /user verification|could not be verified/i,
    'The passkey did not verify you (PIN, fingerprint or face); it is required here.',
  ],
  [/user not present/i, 'The passkey did not confirm your presence.'],
  [/signature/i, "The passkey's signature is not valid."],
]

export function failureMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : ''
  return CHECKS.find(([pattern]) => pattern.test(text))?.[1] ?? 'The passkey could not be verified.'
}

export function verificationFailed(message: string, status: 400 | 401): AppError {
  return new AppError('PASSKEY_VERIFICATION_FAILED', { message, status })
}

export function base64UrlToText(value: string | undefined): string | null {
  if (value === undefined || !/^[A-Za-z0-9_-]*$/.test(value)) return null
  return Buffer.from(value, 'base64url').toString('utf8')
}
