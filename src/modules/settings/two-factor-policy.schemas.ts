import { Type, type Static } from '@sinclair/typebox'
import { Body, Nullable, Secret, Timestamp } from '../../lib/schema-types.js'
import {
  TWO_FACTOR_POLICIES,
  type TwoFactorRequirement,
} from '../../identity/two-factor-requirement.js'

const Required = Type.Unsafe<TwoFactorRequirement>({
  type: 'string',
  enum: [...TWO_FACTOR_POLICIES],
  description: 'off: nobody is required; admins: administrators; everyone: every account',
})

export const TwoFactorPolicyView = Type.Object(
  {
    required: Required,
    updated_at: Nullable(Timestamp()),
  },
  { title: 'TwoFactorPolicy', additionalProperties: false },
)
export type TwoFactorPolicyView = Static<typeof TwoFactorPolicyView>

export const UpdateTwoFactorPolicyBody = Body({
  required: Required,
  current_password: Type.Optional(Secret(1024)),
  code: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Your TOTP or backup code, when your two-factor authentication is on',
    }),
  ),
})
export type UpdateTwoFactorPolicyBody = Static<typeof UpdateTwoFactorPolicyBody>
