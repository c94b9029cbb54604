import { Type, type Static } from '@sinclair/typebox'
import { AdminProofFields } from '../admin/users.schemas.js'
import {
  Body,
  DisplayText,
  Email,
  Nullable,
  PageOf,
  Secret,
  Text,
  Timestamp,
} from '../../lib/schema-types.js'

/**
 * docs/API.md#settings: lower-case letters, digits, `_` and `.`, starting with a letter, at most
 * 100.
 */
export const SETTING_KEY_PATTERN = '^[a-z][a-z0-9_.]{0,99}$'

export const Setting = Type.Object(
  {
    key: Type.String(),
    value: Type.Unknown({
      description: 'Any JSON value; typed sections (smtp, ai) appear sanitized',
    }),
    updated_at: Timestamp(),
  },
  { title: 'Setting', additionalProperties: false },
)
export type Setting = Static<typeof Setting>
export const SettingPage = PageOf(Setting)

/** Reading and deleting: a key that cannot exist is simply not found (like a malformed id). */
export const SettingKeyParams = Type.Object({ key: Type.String({ minLength: 1 }) })
export type SettingKeyParams = Static<typeof SettingKeyParams>

/** Writing: the key must follow the pattern (400 on `key`). */
export const SettingWriteParams = Type.Object({
  key: Type.String({
    pattern: SETTING_KEY_PATTERN,
    'x-message': 'must match ^[a-z][a-z0-9_.]{0,99}$',
  }),
})

export const PutSettingBody = Body({
  value: Type.Unknown({ description: 'Any JSON value (null included), at most 16 KiB serialized' }),
})
export type PutSettingBody = Static<typeof PutSettingBody>

// --- SMTP -------------------------------------------------------------------------------------

const Host = Type.String({
  'x-trim': true,
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$',
  'x-message': 'must be a host name or an IP address',
})

export const SmtpView = Type.Object(
  {
    enabled: Type.Boolean(),
    host: Nullable(Type.String()),
    port: Type.Integer(),
    secure: Type.Boolean({
      description:
        'true: TLS from the first byte (usually port 465); false: STARTTLS — required before authentication when a username is set',
    }),
    username: Nullable(Type.String()),
    from_address: Nullable(Type.String()),
    from_name: Nullable(Type.String()),
    password_set: Type.Boolean({
      description: 'Whether a password is stored; the password itself is never returned',
    }),
    plaintext_auth_on_loopback: Type.Boolean({
      description:
        'Allow authentication without TLS, only to a loopback host (127.0.0.0/8, ::1, localhost); default false',
    }),
  },
  { title: 'SmtpSettings', additionalProperties: false },
)
export type SmtpView = Static<typeof SmtpView>

export const UpdateSmtpBody = Body(
  {
    enabled: Type.Optional(Type.Boolean()),
    host: Type.Optional(Nullable(Host)),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    secure: Type.Optional(Type.Boolean()),
    username: Type.Optional(Nullable(Text({ minLength: 1, maxLength: 254 }))),
    from_address: Type.Optional(Nullable(Email())),
    from_name: Type.Optional(Nullable(DisplayText({ minLength: 1, maxLength: 100 }))),
    password: Type.Optional(
      Type.Union([Secret(1024), Type.Null()], {
        description:
          'Omitted: kept (not when host or port change: then it must be sent again, or null); null: cleared. Write-only.',
      }),
    ),
    plaintext_auth_on_loopback: Type.Optional(Type.Boolean()),
    ...AdminProofFields,
  },
  { minProperties: 1 },
)
export type UpdateSmtpBody = Static<typeof UpdateSmtpBody>

export const SmtpTestBody = Body({ to: Type.Optional(Email()) })
export type SmtpTestBody = Static<typeof SmtpTestBody>

export const SmtpTestResult = Type.Object({
  delivered: Type.Literal(true),
  message_id: Type.String({ description: 'The Message-ID of the test mail' }),
})

// --- AI ---------------------------------------------------------------------------------------

export const AI_PROVIDERS = ['openai'] as const
const Provider = Type.Unsafe<(typeof AI_PROVIDERS)[number]>({
  type: 'string',
  enum: [...AI_PROVIDERS],
})

export const AiView = Type.Object(
  {
    enabled: Type.Boolean(),
    provider: Provider,
    base_url: Type.String(),
    model: Nullable(Type.String()),
    api_key_set: Type.Boolean({
      description: 'Whether an API key is stored; the key itself is never returned',
    }),
    suggestions_existing_tags_only: Type.Boolean(),
    suggestions_hourly_limit: Type.Integer(),
    timeout_seconds: Type.Integer(),
    allow_private_network: Type.Boolean(),
  },
  { title: 'AiSettings', additionalProperties: false },
)
export type AiView = Static<typeof AiView>

export const UpdateAiBody = Body(
  {
    enabled: Type.Optional(Type.Boolean()),
    provider: Type.Optional(Provider),
    base_url: Type.Optional(
      Type.String({
        'x-trim': true,
        maxLength: 2048,
        format: 'uri',
        pattern: '^https?://',
        'x-message': 'must be an http(s) URL',
        description: 'https; http only for a loopback host (127.0.0.0/8, ::1, localhost)',
      }),
    ),
    model: Type.Optional(Nullable(Text({ minLength: 1, maxLength: 200 }))),
    api_key: Type.Optional(
      Type.Union([Secret(1024), Type.Null()], {
        description:
          "Omitted: kept (not when base_url's origin changes: then it must be sent again, or null); null: cleared. Write-only.",
      }),
    ),
    suggestions_existing_tags_only: Type.Optional(
      Type.Boolean({ description: 'Link suggestions offer only tags that exist (default false)' }),
    ),
    suggestions_hourly_limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000,
        description: 'Model calls per person per UTC hour for link suggestions (default 60)',
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 60,
        description: 'The whole model call for a suggestion, then local suggestions (default 10)',
      }),
    ),
    allow_private_network: Type.Optional(
      Type.Boolean({
        description:
          'The provider may be on a private network or loopback, over plain http there (default false); nothing else may',
      }),
    ),
  },
  { minProperties: 1 },
)
export type UpdateAiBody = Static<typeof UpdateAiBody>

export const AiModel = Type.Object({ id: Type.String(), owned_by: Nullable(Type.String()) })
export const AiModelPage = PageOf(AiModel)

export const AiSuggestionFlags = Type.Object({
  available: Type.Boolean({ description: 'The instance has AI configured and switched on' }),
  enabled: Type.Boolean({ description: "Available, and the user's ai_suggestions_enabled is on" }),
})
