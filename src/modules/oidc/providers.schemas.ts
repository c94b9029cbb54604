import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, PageOf, Secret, Text, Timestamp } from '../../lib/schema-types.js'
import { AdminProofFields } from '../admin/users.schemas.js'

/** docs/API.md#identity-providers. */
export const PROVIDER_KEY_PATTERN = '^[a-z0-9][a-z0-9_-]{0,49}$'
/** Path segments of the sign-in routes and the app's login pages, which a key must not shadow. */
export const RESERVED_PROVIDER_KEYS: readonly string[] = [
  'providers',
  'setup',
  'login',
  'logout',
  'csrf',
  'mfa',
  'oidc',
  'me',
  'callback',
]
export const DEFAULT_SCOPES = ['openid', 'email', 'profile']
export const MAX_SCOPES = 20

const ROLES = ['user', 'admin'] as const
const Role = Type.Unsafe<(typeof ROLES)[number]>({ type: 'string', enum: [...ROLES] })

export const OidcProviderView = Type.Object(
  {
    id: Type.String(),
    provider_key: Type.String(),
    name: Type.String(),
    issuer_url: Type.String(),
    client_id: Type.String(),
    client_secret_set: Type.Boolean({
      description: 'Whether a client secret is stored; the secret itself is never returned',
    }),
    scopes: Type.Array(Type.String(), { description: 'Always contains openid' }),
    auto_create_users: Type.Boolean(),
    default_role: Role,
    enabled: Type.Boolean(),
    trust_email: Type.Boolean({
      description:
        'Whether a first sign-in may link an existing account with the same verified email (never an administrator); default false',
    }),
    trusts_mfa_amr: Type.Boolean({
      description:
        "Whether the provider's `amr` claim naming a second factor (mfa, otp, hwk, swk, sc, fpt, face, iris, retina) satisfies the instance's two-factor policy; default false",
    }),
    callback_url: Type.String({
      description:
        'Register this redirect URI at the provider: {PUBLIC_URL}/api/auth/oidc/{provider_key}/callback',
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'OidcProvider', additionalProperties: false },
)
export type OidcProviderView = Static<typeof OidcProviderView>
export const OidcProviderPage = PageOf(OidcProviderView)

const ProviderKey = Type.String({
  pattern: PROVIDER_KEY_PATTERN,
  'x-message': 'must be 1–50 lower-case letters, digits, _ or -, starting with a letter or digit',
})
/** A scope-token of RFC 6749 §3.3: printable ASCII without space, `"` and `\`. */
const Scope = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$',
  'x-message': 'must be a scope token (printable ASCII without spaces, quotes or backslashes)',
})

const fields = {
  provider_key: ProviderKey,
  name: DisplayText({ minLength: 1, maxLength: 100 }),
  issuer_url: Type.String({
    'x-trim': true,
    minLength: 1,
    maxLength: 2048,
    description: 'https (http only for 127.0.0.1, ::1, localhost)',
  }),
  client_id: Text({ minLength: 1, maxLength: 512 }),
  client_secret: Type.Union([Secret(1024), Type.Null()], {
    description: 'Write-only. null: a public client (PKCE only).',
  }),
  scopes: Type.Array(Scope, {
    maxItems: MAX_SCOPES,
    description: 'openid is added when missing; duplicates are dropped',
  }),
  auto_create_users: Type.Boolean(),
  default_role: Role,
  enabled: Type.Boolean(),
  trust_email: Type.Boolean(),
  trusts_mfa_amr: Type.Boolean(),
}

export const CreateOidcProviderBody = Body({
  provider_key: fields.provider_key,
  name: fields.name,
  issuer_url: fields.issuer_url,
  client_id: fields.client_id,
  client_secret: fields.client_secret,
  scopes: Type.Optional(fields.scopes),
  auto_create_users: Type.Optional(fields.auto_create_users),
  default_role: Type.Optional(fields.default_role),
  enabled: Type.Optional(fields.enabled),
  trust_email: Type.Optional(fields.trust_email),
  trusts_mfa_amr: Type.Optional(fields.trusts_mfa_amr),
  ...AdminProofFields,
})
export type CreateOidcProviderBody = Static<typeof CreateOidcProviderBody>

export const UpdateOidcProviderBody = Body(
  {
    provider_key: Type.Optional(fields.provider_key),
    name: Type.Optional(fields.name),
    issuer_url: Type.Optional(fields.issuer_url),
    client_id: Type.Optional(fields.client_id),
    client_secret: Type.Optional(
      Type.Union([Secret(1024), Type.Null()], {
        description: 'Write-only. Omitted: kept; null: cleared (a public client).',
      }),
    ),
    scopes: Type.Optional(fields.scopes),
    auto_create_users: Type.Optional(fields.auto_create_users),
    default_role: Type.Optional(fields.default_role),
    enabled: Type.Optional(fields.enabled),
    trust_email: Type.Optional(fields.trust_email),
    trusts_mfa_amr: Type.Optional(fields.trusts_mfa_amr),
    ...AdminProofFields,
  },
  { minProperties: 1 },
)
export type UpdateOidcProviderBody = Static<typeof UpdateOidcProviderBody>

/**
 * What the console shows before a provider is saved — the callback URL for a key, and
 * whether the issuer's discovery document can be fetched and used.
 */
export const CheckOidcProviderBody = Body(
  {
    provider_key: Type.Optional(fields.provider_key),
    issuer_url: Type.Optional(fields.issuer_url),
  },
  { minProperties: 1 },
)
export type CheckOidcProviderBody = Static<typeof CheckOidcProviderBody>

const ISSUER_PROBLEMS = ['refused', 'unreachable', 'timeout', 'invalid'] as const

export const OidcProviderCheckView = Type.Object({
  callback_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'The redirect URI to register at the provider for this provider_key (null without one)',
  }),
  issuer: Type.Union(
    [
      Type.Object({
        ok: Type.Literal(true),
        issuer: Type.String(),
        authorization_endpoint: Type.String(),
        token_endpoint: Type.String(),
        jwks_uri: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Object({
        ok: Type.Literal(false),
        problem: Type.Unsafe<(typeof ISSUER_PROBLEMS)[number]>({
          type: 'string',
          enum: [...ISSUER_PROBLEMS],
          description:
            'refused: the outbound rules forbid the address; unreachable: no connection; timeout: no answer in time; invalid: an answer that is not a usable discovery document for this issuer',
        }),
        detail: Type.String({
          description: 'What went wrong, in English, without the provider’s own text',
        }),
      }),
      Type.Null(),
    ],
    { description: 'The discovery check of issuer_url (null without one)' },
  ),
})
export type OidcProviderCheckView = Static<typeof OidcProviderCheckView>
