import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, PageOf, Secret, Timestamp } from '../../lib/schema-types.js'

export const PasskeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
  backup_eligible: Type.Boolean({
    description: 'A synced (multi-device) passkey, e.g. in a password manager or platform account',
  }),
  backed_up: Type.Boolean({
    description: 'The authenticator said at the last use that the passkey is backed up',
  }),
})
export const PasskeyPage = PageOf(PasskeyView)

const PasskeyName = DisplayText({ minLength: 1, maxLength: 64 })
const ReauthPassword = Type.Optional(Secret())

const Base64Url = (maxLength: number) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]*$', minLength: 1, maxLength })

/**
 * A credential as the browser's WebAuthn JSON (PublicKeyCredential#toJSON, or
 * @simplewebauthn/browser). Unlike our own request bodies, unknown fields inside it are accepted:
 * browsers add fields over time (the rule of docs/API.md#conventions is for our own shapes; the
 * library checks what matters).
 */
const CredentialCommon = {
  id: Base64Url(1024),
  rawId: Base64Url(1024),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
}

export const RegistrationCredential = Type.Object({
  ...CredentialCommon,
  response: Type.Object({
    clientDataJSON: Base64Url(4096),
    attestationObject: Base64Url(32 * 1024),
    authenticatorData: Type.Optional(Base64Url(16 * 1024)),
    transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
    publicKey: Type.Optional(Base64Url(16 * 1024)),
  }),
})

export const AuthenticationCredential = Type.Object({
  ...CredentialCommon,
  response: Type.Object({
    clientDataJSON: Base64Url(4096),
    authenticatorData: Base64Url(16 * 1024),
    signature: Base64Url(2048),
    userHandle: Type.Optional(Base64Url(1024)),
  }),
})

/**
 * The second-factor proof (proof.ts): the password (when the account has one) and, when the account
 * has a second factor, either a code or a registered passkey's answer to POST /proof/options.
 */
export const FactorProof = {
  password: ReauthPassword,
  code: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'A current TOTP code or an unused backup code (when the account has a second factor)',
    }),
  ),
  passkey: Type.Optional(
    Type.Object(AuthenticationCredential.properties, {
      description:
        "Instead of a code: a registered passkey's answer to the challenge of POST /api/auth/passkeys/proof/options",
    }),
  ),
}

export const RegistrationOptionsBody = Body(FactorProof)
export type RegistrationOptionsBody = Static<typeof RegistrationOptionsBody>

/**
 * The browser's options, passed to navigator.credentials.create/get as they are (fields beyond
 * these pass through).
 */
const CeremonyOptions = (description: string) =>
  Type.Object(
    {
      challenge: Type.String({ description: 'base64url; single use, valid until expires_at' }),
      timeout: Type.Optional(Type.Integer()),
      rpId: Type.Optional(Type.String()),
      userVerification: Type.Optional(Type.String()),
    },
    { additionalProperties: true, description },
  )

export const RegistrationOptionsView = Type.Object({
  options: CeremonyOptions(
    'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3), for @simplewebauthn/browser startRegistration',
  ),
  expires_at: Timestamp(),
})

export const RegistrationBody = Body({
  name: Type.Optional(PasskeyName),
  credential: RegistrationCredential,
})
export type RegistrationBody = Static<typeof RegistrationBody>

export const RenameBody = Body({
  name: PasskeyName,
  password: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'Ignored: a rename needs no proof; accepted so that older clients keep working',
    }),
  ),
})
export type RenameBody = Static<typeof RenameBody>

export const DeleteBody = Body(FactorProof)
export type DeleteBody = Static<typeof DeleteBody>

export const AssertionOptionsView = Type.Object({
  options: CeremonyOptions(
    'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3), for @simplewebauthn/browser startAuthentication',
  ),
  expires_at: Timestamp(),
})

export const MfaOptionsBody = Body({ mfa_token: Secret(256) })
export type MfaOptionsBody = Static<typeof MfaOptionsBody>

export const MfaVerifyBody = Body({ mfa_token: Secret(256), credential: AuthenticationCredential })
export type MfaVerifyBody = Static<typeof MfaVerifyBody>

export const PasswordlessOptionsView = Type.Object({
  attempt_token: Type.String({
    description: 'Single use; send it back with the passkey’s answer within 5 minutes',
  }),
  options: CeremonyOptions(
    'PublicKeyCredentialRequestOptionsJSON with no allowCredentials: any discoverable passkey of this site',
  ),
  expires_at: Timestamp(),
})

export const PasswordlessBody = Body({
  attempt_token: Secret(256),
  credential: AuthenticationCredential,
})
export type PasswordlessBody = Static<typeof PasswordlessBody>
