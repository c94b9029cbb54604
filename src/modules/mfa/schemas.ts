import { Type, type Static } from '@sinclair/typebox'
import { Body, Secret, Timestamp } from '../../lib/schema-types.js'

export const MfaStatusView = Type.Object({
  enabled: Type.Boolean(),
  enrolled_at: Type.Optional(Timestamp()),
  error: Type.Optional(Type.String({ description: 'Absent on success' })),
  pending: Type.Boolean({ description: 'An enrollment has begun and not expired' }),
  backup_codes_remaining: Type.Integer({ minimum: 0 }),
  enrollment_required: Type.Boolean({
    description:
      'The two-factor policy covers you and you have no second factor yet — only enrolment is open until you set one up',
  }),
})

export const BeginBody = Body({ password: Type.Optional(Secret()) })
export type BeginBody = Static<typeof BeginBody>

export const EnrollmentView = Type.Object({
  secret: Type.String({ description: 'Base32 TOTP secret (160 bits), for manual entry' }),
  otpauth_url: Type.String(),
  qr_svg: Type.String({ description: 'The otpauth URL as an SVG QR code' }),
  expires_at: Timestamp(),
})

export const ConfirmBody = Body({
  code: Type.String({
    pattern: '^[0-9]{6}$',
    'x-message': 'must be the 6-digit code from the authenticator app',
  }),
  revoke_api_tokens: Type.Optional(
    Type.Boolean({
      description:
        'Also revoke every personal API token of the account (default false; the console ticks it)',
    }),
  ),
})
export type ConfirmBody = Static<typeof ConfirmBody>

/** A TOTP code or a backup code (with or without its dash), checked by the service. */
const Code = Secret(64)

/**
 * Disable and regenerate: the code always, the password when the account has one (the service
 * checks that) — the re-authentication window waives neither.
 */
export const TrustedBody = Body({
  code: Code,
  password: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'Required when the account has a local password',
    }),
  ),
})
export type TrustedBody = Static<typeof TrustedBody>

export const BackupCodesView = Type.Object({
  backup_codes: Type.Array(Type.String({ examples: ['k3x9p-7mq2d'] }), {
    description: 'One-time codes, shown only in this response',
  }),
})

export const VerifyBody = Body({ mfa_token: Secret(256), code: Code })
export type VerifyBody = Static<typeof VerifyBody>
