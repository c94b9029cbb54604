import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, Text, Timestamp } from '../../lib/schema-types.js'

const Id = Text({ minLength: 1, maxLength: 200 })
const Name = DisplayText({ minLength: 1, maxLength: 200 })
const Description = Nullable(DisplayText({ minLength: 1, maxLength: 1000 }))
const TeamIds = Type.Array(Id, {
  maxItems: 50,
  uniqueItems: true,
  description:
    'The teams the collection is shared with: their members see it and its links, read-only. You may add teams you are a member of (an administrator: any team), and remove any',
})

/** docs/API.md#collections */
export const CollectionView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    organization_id: Nullable(Type.String({ description: 'null for a personal collection' })),
    team_ids: Type.Array(Type.String()),
    link_count: Type.Integer({ minimum: 0 }),
    can_change: Type.Boolean({
      description:
        "Whether you may change or delete it: your own, or your organization's when you created it or own or administer the organization",
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'Collection' },
)
export type CollectionView = Static<typeof CollectionView>

export const CollectionList = Type.Object({
  items: Type.Array(CollectionView, {
    description: 'By name ignoring case, then id; at most 1000',
  }),
})
export type CollectionList = Static<typeof CollectionList>

export const CreateCollectionBody = Body({
  name: Name,
  description: Type.Optional(Description),
  organization_id: Type.Optional(Nullable(Id)),
  team_ids: Type.Optional(TeamIds),
})
export type CreateCollectionBody = Static<typeof CreateCollectionBody>

export const UpdateCollectionBody = Body(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    team_ids: Type.Optional(TeamIds),
  },
  { minProperties: 1 },
)
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>

export const SetCollectionLinksBody = Body({
  link_ids: Type.Array(Id, {
    maxItems: 1000,
    uniqueItems: true,
    description:
      "The collection's links in this order: your own links for a personal collection, the organization's for an organization's",
  }),
})
export type SetCollectionLinksBody = Static<typeof SetCollectionLinksBody>
