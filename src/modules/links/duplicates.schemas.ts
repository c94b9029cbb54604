import { Type, type Static } from '@sinclair/typebox'
import { Nullable, Text } from '../../lib/schema-types.js'

export const DuplicateQuery = Type.Object(
  {
    url: Text({
      minLength: 1,
      maxLength: 2048,
      description: 'The URL about to be saved; compared by its key (docs/API.md#duplicates)',
    }),
  },
  { additionalProperties: false },
)
export type DuplicateQuery = Static<typeof DuplicateQuery>

export const DuplicateLink = Type.Object({
  id: Type.String(),
  slug: Nullable(Type.String()),
  title: Nullable(Type.String()),
  organization_id: Nullable(Type.String()),
  owner_name: Type.String({
    description: "The organization's name for an organization's link, else its owner's name",
  }),
})
export type DuplicateLink = Static<typeof DuplicateLink>

export const DuplicateList = Type.Object({
  items: Type.Array(DuplicateLink, { maxItems: 20 }),
})
export type DuplicateList = Static<typeof DuplicateList>
