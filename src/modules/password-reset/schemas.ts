import { Type, type Static } from '@sinclair/typebox'
import { Body, Email, Nullable, Secret, Timestamp } from '../../lib/schema-types.js'

export const ResetAvailabilityView = Type.Object(
  {
    by_mail: Type.Boolean({
      description:
        'Whether a reset link can be mailed (outgoing mail is configured); otherwise ask an administrator',
    }),
  },
  { title: 'PasswordResetAvailability' },
)

export const RequestResetBody = Body({ email: Email() })
export type RequestResetBody = Static<typeof RequestResetBody>

export const ResetRequestedView = Type.Object(
  {
    link_valid_minutes: Type.Integer({
      description:
        'How long a mailed link is valid. The same answer whether or not the address has an account.',
    }),
  },
  { title: 'PasswordResetRequested' },
)

export const ResetTokenBody = Body({ token: Secret(256) })
export type ResetTokenBody = Static<typeof ResetTokenBody>

export const ResetLinkView = Type.Object(
  {
    email: Type.String({
      description: "The account's email (for the password manager's username field)",
    }),
    welcome: Type.Boolean({
      description: 'A welcome link: the first password of an account created by an administrator',
    }),
    provider_only: Type.Boolean({
      description:
        'The account signs in only through an identity provider: there is no password to set',
    }),
    provider_name: Nullable(Type.String()),
    second_factor: Type.Boolean({
      description: 'Two-factor authentication is on and stays on: the next sign-in asks for it',
    }),
    api_tokens: Type.Integer({
      description: 'Active API tokens of the account, which the reset may also revoke',
    }),
    expires_at: Timestamp(),
  },
  { title: 'PasswordResetLink' },
)

export const CompleteResetBody = Body({
  token: Secret(256),
  new_password: Secret(),
  revoke_api_tokens: Type.Optional(
    Type.Boolean({ description: 'Also revoke every API token of the account (default false)' }),
  ),
})
export type CompleteResetBody = Static<typeof CompleteResetBody>

export const ResetOutcomeView = Type.Object(
  {
    sessions_revoked: Type.Integer(),
    api_tokens_revoked: Type.Integer(),
    api_tokens_kept: Type.Integer(),
    second_factor: Type.Boolean({
      description: 'The next sign-in still asks for the second factor',
    }),
  },
  { title: 'PasswordResetOutcome' },
)

export const AdminResetMailView = Type.Object(
  { expires_at: Timestamp() },
  { title: 'PasswordResetMailed' },
)

export const AdminResetLinkView = Type.Object(
  {
    url: Type.String({
      description: 'The single-use reset link. Returned once, in this response only.',
    }),
    expires_at: Timestamp(),
  },
  { title: 'PasswordResetLinkCreated' },
)
