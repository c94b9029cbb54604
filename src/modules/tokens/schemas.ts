import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, PageOf, Timestamp } from '../../lib/schema-types.js'
import { LIFETIME_CEILING_DAYS } from './limits.js'
import { TOKEN_PERMISSIONS, type TokenPermission } from '../../identity/permissions.js'

const Permission = Type.Unsafe<TokenPermission>({
  type: 'string',
  enum: [...TOKEN_PERMISSIONS],
  description:
    '`<area>:read` or `<area>:write` (write implies read); the admin.* areas for administrators only',
})

const Boundary = Type.Unsafe<'personal' | 'selected' | 'all'>({
  type: 'string',
  enum: ['personal', 'selected', 'all'],
  description:
    "personal: personal resources only; selected: those and the organizations listed; all: every organization of the owner's",
})

export const ApiTokenView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({
      description: 'The first 10 characters of the token (sb_ + 7), to recognise it',
    }),
    created_at: Timestamp(),
    last_used_at: Nullable(Timestamp()),
    last_used_ip: Nullable(
      Type.String({ description: 'The address of the last use (recorded at most once a minute)' }),
    ),
    expires_at: Nullable(Timestamp()),
    legacy: Type.Boolean({
      description:
        'Made before scopes existed: full access, no boundary. Replace it with a scoped token.',
    }),
    permissions: Type.Array(Permission, {
      description:
        'What the token may do (write implies read; the smallest list). Empty for a legacy token. admin.* permissions apply only while the owner is an administrator.',
    }),
    organization_boundary: Boundary,
    organization_ids: Type.Array(Type.String(), {
      description: 'The organizations of a `selected` boundary; empty otherwise',
    }),
  },
  { $id: 'ApiToken', title: 'ApiToken' },
)
export type ApiTokenView = Static<typeof ApiTokenView>

export const CreatedApiTokenView = Type.Composite([
  Type.Omit(ApiTokenView, []),
  Type.Object({
    token: Type.String({ description: 'The whole secret. Returned once, in this response only.' }),
  }),
])

export const CreateApiTokenBody = Body({
  name: DisplayText({ minLength: 1, maxLength: 100 }),
  permissions: Type.Array(Permission, {
    minItems: 1,
    maxItems: TOKEN_PERMISSIONS.length,
    uniqueItems: true,
  }),
  organization_boundary: Type.Optional(Boundary),
  organization_ids: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 100,
      uniqueItems: true,
      description: 'Required (at least one) with `selected`; organizations you are a member of',
    }),
  ),
  expires_in_days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: LIFETIME_CEILING_DAYS,
      description: "Default 30; at most the instance's maximum lifetime",
    }),
  ),
  expires_at: Type.Optional(Timestamp()),
})
export type CreateApiTokenBody = Static<typeof CreateApiTokenBody>

export const ApiTokenPage = PageOf(Type.Ref(ApiTokenView))

export const ApiTokenPolicyView = Type.Object(
  {
    default_lifetime_days: Type.Integer(),
    max_lifetime_days: Type.Integer({ description: 'The longest expiry a new token may have' }),
    legacy_refused_from: Nullable(Timestamp()),
  },
  { title: 'ApiTokenPolicy', additionalProperties: false },
)
export type ApiTokenPolicyView = Static<typeof ApiTokenPolicyView>

export const ApiTokenSettingsView = Type.Object(
  {
    max_lifetime_days: Type.Integer({ minimum: 1, maximum: LIFETIME_CEILING_DAYS }),
    refuse_legacy_from: Nullable(Timestamp()),
    updated_at: Nullable(Timestamp()),
  },
  { title: 'ApiTokenSettings', additionalProperties: false },
)
export type ApiTokenSettingsView = Static<typeof ApiTokenSettingsView>

export const UpdateApiTokenSettingsBody = Body(
  {
    max_lifetime_days: Type.Optional(Type.Integer({ minimum: 1, maximum: LIFETIME_CEILING_DAYS })),
    refuse_legacy_from: Type.Optional(Nullable(Timestamp())),
  },
  { minProperties: 1 },
)
export type UpdateApiTokenSettingsBody = Static<typeof UpdateApiTokenSettingsBody>
