import { Type, type Static } from '@sinclair/typebox'
import {
  Body,
  DisplayText,
  Nullable,
  PageOf,
  PageQuery,
  Text,
  Timestamp,
} from '../../lib/schema-types.js'

const TagName = DisplayText({ minLength: 1, maxLength: 64 })
const Color = Nullable(
  Type.String({
    pattern: '^#[0-9a-fA-F]{6}$',
    'x-message': 'must be a colour written #rrggbb',
    examples: ['#1e90ff'],
  }),
)

/**
 * docs/API.md#tags; `link_count` counts the links carrying the tag that its owner can
 * still see.
 */
export const TagView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Nullable(Type.String()),
  link_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})
export type TagView = Static<typeof TagView>

export const TagPage = PageOf(TagView)

/** The most ids one `ids` list names: the console asks once per page of links, in these chunks. */
export const MAX_TAG_IDS = 100

/** The list's page, optionally only the names containing `q` (docs/API.md#tags). */
export const TagListQuery = Type.Object(
  {
    ...PageQuery.properties,
    q: Type.Optional(
      Text({ minLength: 1, maxLength: 64, description: 'Part of the name, any case' }),
    ),
    ids: Type.Optional(
      Type.String({
        pattern: `^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64}){0,${MAX_TAG_IDS - 1}}$`,
        maxLength: MAX_TAG_IDS * 65,
        'x-message': `must be 1 to ${MAX_TAG_IDS} tag ids separated by commas`,
        description: 'Only these tags (ids separated by commas), all in one page',
      }),
    ),
  },
  { additionalProperties: false },
)
export type TagListQuery = Static<typeof TagListQuery>

export const CreateTagBody = Body({ name: TagName, color: Type.Optional(Color) })
export type CreateTagBody = Static<typeof CreateTagBody>

/**
 * PATCH and PUT alike (docs/API.md#conventions): any of the fields; `color: null` removes the
 * colour.
 */
export const UpdateTagBody = Body(
  { name: Type.Optional(TagName), color: Type.Optional(Color) },
  { minProperties: 1 },
)
export type UpdateTagBody = Static<typeof UpdateTagBody>
