import { Type, type Static } from '@sinclair/typebox'
import { Body, PageOf, Text, Timestamp, Nullable } from '../../lib/schema-types.js'

/** docs/API.md#links-and-go-links: which link /go/{slug} opens for the caller. */
export const PreferenceView = Type.Object({
  slug: Type.String({ description: "The link's slug as written on it" }),
  link_id: Type.String(),
  title: Nullable(Type.String()),
  url: Type.String(),
  source: Type.String({
    description: '`personal`, or the name of the organization the link is shared with',
  }),
  source_kind: Type.Unsafe<'personal' | 'organization'>({
    type: 'string',
    enum: ['personal', 'organization'],
    description: 'Which kind `source` is: an organization may be named "personal"',
  }),
  updated_at: Timestamp(),
})
export type PreferenceView = Static<typeof PreferenceView>

export const PreferencePage = PageOf(PreferenceView)

/**
 * Checked against the slug pattern by the service: 400 when writing, simply not found otherwise.
 */
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1 }) })
export type SlugParams = Static<typeof SlugParams>

export const SetPreferenceBody = Body({ link_id: Text({ minLength: 1, maxLength: 200 }) })
export type SetPreferenceBody = Static<typeof SetPreferenceBody>
