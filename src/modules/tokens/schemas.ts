import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, PageOf, Timestamp } from '../../lib/schema-types.js'

export const ApiTokenView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first 10 characters of the token (sb_ + 7), to recognise it' }),
    created_at: Timestamp(),
    last_used_at: Nullable(Timestamp()),
    expires_at: Nullable(Timestamp()),
  },
  { $id: 'ApiToken', title: 'ApiToken' },
)
export type ApiTokenView = Static<typeof ApiTokenView>

export const CreatedApiTokenView = Type.Composite([
  Type.Omit(ApiTokenView, []),
  Type.Object({ token: Type.String({ description: 'The whole secret. Returned once, in this response only.' }) }),
])

export const CreateApiTokenBody = Body({
  name: DisplayText({ minLength: 1, maxLength: 100 }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Default: never expires' })),
})
export type CreateApiTokenBody = Static<typeof CreateApiTokenBody>

export const ApiTokenPage = PageOf(Type.Ref(ApiTokenView))
