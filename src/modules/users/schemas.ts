import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Email, Nullable, Secret } from '../../lib/schema-types.js'

/** The seed's User, exactly its 12 fields (docs/API.md#the-user-object). */
export const UserView = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    user_key: Type.String({ description: '8 base58 characters, immutable' }),
    is_admin: Type.Boolean(),
    language: Type.String({ examples: ['en', 'de-AT'] }),
    theme: Type.Union([Type.Literal('auto'), Type.Literal('light'), Type.Literal('dark')]),
    ai_suggestions_enabled: Type.Boolean(),
    email_pending: Nullable(Type.String()),
    oidc_provider: Nullable(Type.String()),
    oidc_sub: Nullable(Type.String()),
    has_password: Type.Boolean(),
  },
  { $id: 'User', title: 'User', additionalProperties: false },
)
export type UserView = Static<typeof UserView>

export const THEMES = ['auto', 'light', 'dark'] as const
export const Theme = Type.Unsafe<(typeof THEMES)[number]>({ type: 'string', enum: [...THEMES] })
export const Language = Type.String({
  pattern: '^[a-z]{2,3}(-[A-Z]{2})?$',
  'x-trim': true,
  'x-message': 'must be a language tag such as en or de-AT',
})
export const UserName = DisplayText({ minLength: 1, maxLength: 100 })

export const UpdateMeBody = Body(
  {
    name: Type.Optional(UserName),
    language: Type.Optional(Language),
    theme: Type.Optional(Theme),
    ai_suggestions_enabled: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
)
export type UpdateMeBody = Static<typeof UpdateMeBody>

/**
 * The password's state for the Security page's summary. Apart from the User, whose
 * fields the contract fixes (docs/API.md#the-user-object).
 */
export const PasswordStatusView = Type.Object({
  has_password: Type.Boolean(),
  changed_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'When the password was last set; null without a password, or for one set before the time was recorded (migration 0032)',
    }),
  ),
})
export type PasswordStatusView = Static<typeof PasswordStatusView>

export const ChangePasswordBody = Body({
  current_password: Type.Optional(Secret()),
  new_password: Secret(),
  revoke_api_tokens: Type.Optional(
    Type.Boolean({
      description: 'Also revoke every personal API token of the account (default false)',
    }),
  ),
})
export type ChangePasswordBody = Static<typeof ChangePasswordBody>

export const DeleteMeBody = Body({
  password: Type.Optional(Secret()),
  code: Type.Optional(Secret(64)),
})
export type DeleteMeBody = Static<typeof DeleteMeBody>

export const NewUserFields = { email: Email(), name: UserName }
