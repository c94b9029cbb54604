/**
 * Passkeys through the API with the software authenticator
 * (test/helpers/webauthn-authenticator.ts).
 */
import type { TestContext } from './app.js'
import { bearer } from './factories.js'
import {
  SoftwareAuthenticator,
  type CeremonyOverrides,
  type StoredCredential,
} from './webauthn-authenticator.js'

export function authenticatorFor(
  t: TestContext,
  defaults: { backupEligible?: boolean; backedUp?: boolean } = {},
): SoftwareAuthenticator {
  return new SoftwareAuthenticator(new URL(t.config.publicUrl).origin, defaults)
}

/**
 * The second factor proven when adding a passkey to an account that has one: a code, or a
 * registered passkey.
 */
export type FactorProof =
  { code: string } | { passkey: SoftwareAuthenticator; credential?: StoredCredential }

/**
 * A registered passkey's answer to this session's proof challenge (POST
 * /api/auth/passkeys/proof/options).
 */
export async function passkeyProof(
  t: TestContext,
  token: string,
  authenticator: SoftwareAuthenticator,
  overrides: CeremonyOverrides & { credential?: StoredCredential } = {},
) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/proof/options',
    headers: bearer(token),
  })
  if (response.statusCode !== 200)
    throw new Error(`proof options failed: ${response.statusCode} ${response.body}`)
  return authenticator.assert(response.json().options, overrides)
}

export async function proofBody(
  t: TestContext,
  token: string,
  proof: FactorProof | undefined,
): Promise<Record<string, unknown>> {
  if (proof === undefined) return {}
  return 'code' in proof
    ? { code: proof.code }
    : {
        passkey: await passkeyProof(t, token, proof.passkey, {
          ...(proof.credential && { credential: proof.credential }),
        }),
      }
}

export async function registrationOptions(
  t: TestContext,
  token: string,
  password: string | null,
  proof?: FactorProof,
) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/registration/options',
    headers: bearer(token),
    payload: { ...(password !== null && { password }), ...(await proofBody(t, token, proof)) },
  })
  if (response.statusCode !== 200)
    throw new Error(`registration options failed: ${response.statusCode} ${response.body}`)
  return response.json().options
}

export function completeRegistration(
  t: TestContext,
  token: string,
  credential: unknown,
  name?: string,
) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/registration',
    headers: bearer(token),
    payload: { credential, ...(name !== undefined && { name }) },
  })
}

/**
 * Registers a passkey for the signed-in user (with `proof` when the account has a second factor);
 * returns its id.
 */
export async function registerPasskey(
  t: TestContext,
  signedIn: { token: string; password: string | null },
  authenticator: SoftwareAuthenticator,
  options: { name?: string; overrides?: CeremonyOverrides; proof?: FactorProof } = {},
): Promise<string> {
  const creation = await registrationOptions(t, signedIn.token, signedIn.password, options.proof)
  const response = await completeRegistration(
    t,
    signedIn.token,
    authenticator.register(creation, options.overrides),
    options.name,
  )
  if (response.statusCode !== 201)
    throw new Error(`registration failed: ${response.statusCode} ${response.body}`)
  return response.json().id
}

export async function mfaOptions(t: TestContext, mfaToken: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/mfa/options',
    payload: { mfa_token: mfaToken },
  })
  if (response.statusCode !== 200)
    throw new Error(`mfa options failed: ${response.statusCode} ${response.body}`)
  return response.json().options
}

export function verifyPasskeyMfa(t: TestContext, mfaToken: string, credential: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/mfa/verify',
    payload: { mfa_token: mfaToken, credential },
  })
}

export async function passwordlessOptions(
  t: TestContext,
): Promise<{ attempt_token: string; options: { challenge: string; rpId?: string } }> {
  const response = await t.app.inject({ method: 'POST', url: '/api/auth/passkeys/login/options' })
  if (response.statusCode !== 200)
    throw new Error(`login options failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

export function signInWithPasskey(t: TestContext, attemptToken: string, credential: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/passkeys/login',
    payload: { attempt_token: attemptToken, credential },
  })
}
