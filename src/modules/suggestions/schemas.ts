import { Type, type Static } from '@sinclair/typebox'
import { Body, DisplayText, Nullable, Text } from '../../lib/schema-types.js'

export const FALLBACK_REASONS = [
  'not_configured',
  'disabled',
  'budget',
  'timeout',
  'provider_error',
  'unreadable_answer',
] as const
export type FallbackReason = (typeof FALLBACK_REASONS)[number]

export const SuggestLinkBody = Body({
  url: Text({
    minLength: 1,
    maxLength: 2048,
    description: 'The URL typed for the new link (an absolute http(s) URL)',
  }),
  title: Type.Optional(DisplayText({ minLength: 1, maxLength: 200 })),
  organization_id: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 200,
      description: 'The organization the link would be created in: its slugs are checked',
    }),
  ),
})
export type SuggestLinkBody = Static<typeof SuggestLinkBody>

const FallbackReasonField = Type.Unsafe<FallbackReason>({
  type: 'string',
  enum: [...FALLBACK_REASONS],
  description: 'Why the suggestions are local',
})

export const LinkSuggestions = Type.Object(
  {
    source: Type.Unsafe<'ai' | 'local'>({ type: 'string', enum: ['ai', 'local'] }),
    title: Nullable(Type.String({ description: 'Plain text, at most 200 characters' })),
    slug: Nullable(
      Type.String({
        description: 'In the slug grammar, and free for the owner of the new link when answered',
      }),
    ),
    tags: Type.Array(Type.String(), {
      maxItems: 8,
      description: 'An existing tag in its existing spelling',
    }),
    new_tags: Type.Array(Type.String(), {
      maxItems: 8,
      description: 'The tags that do not exist yet; created only when the link is saved with them',
    }),
    fallback_reason: Type.Optional(FallbackReasonField),
  },
  { title: 'LinkSuggestions', additionalProperties: false },
)
export type LinkSuggestions = Static<typeof LinkSuggestions>

/** The most links one bulk tag suggestion takes: as many as one bulk action. */
export const MAX_SUGGESTED_LINKS = 100

/** POST /api/links/suggestions/tags. */
export const SuggestLinkTagsBody = Body({
  link_ids: Type.Array(Text({ minLength: 1, maxLength: 200 }), {
    minItems: 1,
    maxItems: MAX_SUGGESTED_LINKS,
    uniqueItems: true,
    description: 'Links you can see; each is answered once, in this order',
  }),
})
export type SuggestLinkTagsBody = Static<typeof SuggestLinkTagsBody>

export const LinkTagSuggestion = Type.Object(
  {
    link_id: Type.String(),
    source: Type.Unsafe<'ai' | 'local'>({ type: 'string', enum: ['ai', 'local'] }),
    tags: Type.Array(Type.String(), {
      maxItems: 8,
      description: 'An existing tag in its existing spelling',
    }),
    new_tags: Type.Array(Type.String(), {
      maxItems: 8,
      description: 'The tags that do not exist yet; nothing is created by suggesting them',
    }),
    fallback_reason: Type.Optional(FallbackReasonField),
  },
  { title: 'LinkTagSuggestion', additionalProperties: false },
)
export type LinkTagSuggestion = Static<typeof LinkTagSuggestion>

export const LinkTagSuggestions = Type.Object(
  { items: Type.Array(LinkTagSuggestion, { maxItems: MAX_SUGGESTED_LINKS }) },
  { title: 'LinkTagSuggestions', additionalProperties: false },
)
export type LinkTagSuggestions = Static<typeof LinkTagSuggestions>
