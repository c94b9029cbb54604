import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, Timestamp } from '../../lib/schema-types.js'
import { AdminProofFields } from '../admin/users.schemas.js'

export const ScimCredentialView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({
      description: 'The first 12 characters of the token (scim_ + 7), to recognise it',
    }),
    created_at: Timestamp(),
    last_used_at: Nullable(Timestamp()),
  },
  { title: 'ScimCredential' },
)
export type ScimCredentialView = Static<typeof ScimCredentialView>

export const CreatedScimCredentialView = Type.Composite([
  Type.Omit(ScimCredentialView, []),
  Type.Object({
    token: Type.String({
      description:
        'The whole secret, for the identity provider. Returned once, in this response only.',
    }),
    base_url: Type.String({ description: 'The SCIM base URL to enter in the identity provider' }),
  }),
])

export const ScimCredentialList = Type.Object({
  items: Type.Array(ScimCredentialView),
  base_url: Type.String(),
})

export const CreateScimCredentialBody = Body({
  name: DisplayText({ minLength: 1, maxLength: 100 }),
  ...AdminProofFields,
})
export type CreateScimCredentialBody = Static<typeof CreateScimCredentialBody>
