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

export const SLUG_PATTERN = '^[A-Za-z0-9_-]{1,64}$'

export const Slug = Type.String({
  pattern: SLUG_PATTERN,
  'x-message': 'must be 1–64 letters, digits, underscores or dashes',
})
/** The service checks the rest (absolute http(s), no credentials, at most 2048 once normalised). */
const Url = Text({
  minLength: 1,
  maxLength: 2048,
  examples: ['https://example.com/handbook', 'https://jira.example/browse/{1}-{2|1}'],
  description:
    'An absolute http(s) URL without credentials, stored normalised. `/go/{slug}/<rest>` appends `/<rest>` and merges the query, unless the URL is a template: ' +
    '`{path}` (the rest, each segment percent-encoded, slashes kept), `{1}`, `{2}`… (one segment, encoded), `{query}` (the rest as one encoded query value), ' +
    'each with an optional default for an empty value (`{path|main}`). Placeholders may only follow the host; an unknown one (`{path:raw}`, `{0}`) is 400 on `url`.',
})
const Title = Nullable(DisplayText({ minLength: 1, maxLength: 200 }))
const Id = Text({ minLength: 1, maxLength: 200 })
const TagIds = Type.Array(Id, {
  maxItems: 50,
  uniqueItems: true,
  description: 'Your own tags; replaces your tags on the link',
})
const TeamIds = Type.Array(Id, {
  maxItems: 50,
  uniqueItems: true,
  description:
    'The teams the link is shared with (their members see it, read-only); you may add teams you are a member of (an administrator: any team), and remove any',
})

/**
 * docs/API.md#links; `tag_ids` are the caller's own tags on the link (each user tags
 * for themselves).
 */
export const LinkView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  title: Nullable(Type.String()),
  slug: Nullable(Type.String()),
  forwarding_enabled: Type.Boolean(),
  tag_ids: Type.Array(Type.String()),
  organization_id: Nullable(Type.String({ description: 'null for a personal link' })),
  clicks_30d: Type.Integer({
    minimum: 0,
    description:
      'Redirects through /go/{slug} in the last 30 UTC days, today included; counts are written within about a second',
  }),
  can_change: Type.Boolean({
    description:
      'Whether you may change, move or delete it: your personal link, or a shared one you created or whose organization you own or administer; your own tags you may always set',
  }),
  team_ids: Type.Array(Type.String(), { description: 'The teams the link is shared with' }),
  shared_via: Type.Union(
    [
      Type.Object({
        organization: Nullable(
          Type.String({ description: "The organization's name, when you see it as a member" }),
        ),
        teams: Type.Array(Type.String(), {
          description:
            'The names of your teams that see it: shared with the team, or in a collection shared with it',
        }),
      }),
      Type.Null(),
    ],
    { description: 'How you see a link that is not your personal one; null for your own' },
  ),
  pinned: Type.Boolean({ description: 'Whether you pinned it (pins are per person)' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})
export type LinkView = Static<typeof LinkView>

/** GET /api/links/{id}/clicks: one entry per UTC day, oldest first, days without clicks as 0. */
export const LinkClicks = Type.Object({
  link_id: Type.String(),
  days: Type.Array(
    Type.Object({
      day: Type.String({ format: 'date', description: 'YYYY-MM-DD (UTC)' }),
      clicks: Type.Integer({ minimum: 0 }),
    }),
    {
      description: 'The last 90 days, today last',
    },
  ),
  total: Type.Integer({ minimum: 0, description: 'The sum over these days' }),
})
export type LinkClicks = Static<typeof LinkClicks>

export const LinkPage = PageOf(LinkView)

/** The filters of the list, also taken by the export. */
export const LinkFilterQuery = Type.Object(
  {
    tag_id: Type.Optional(Id),
    q: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 200,
        description: 'Part of the title, URL or slug, any case',
      }),
    ),
    organization_id: Type.Optional(Id),
    owner: Type.Optional(
      Type.Union([Type.Literal('personal'), Type.Literal('organization')], {
        description:
          '`personal`: only your own links; `organization`: only links shared with your organizations',
      }),
    ),
    scope: Type.Optional(
      Type.Literal('shared', {
        description:
          '`shared`: only links shared with one of your teams, directly or in a collection shared with it',
      }),
    ),
    pinned: Type.Optional(
      Type.Boolean({ description: '`true`: only the links you pinned; `false`: the others' }),
    ),
    collection_id: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 200,
        description:
          "Only this collection's links, in the collection's order (one you do not see matches nothing); `sort` is then ignored",
      }),
    ),
  },
  { additionalProperties: false },
)
export type LinkFilterQuery = Static<typeof LinkFilterQuery>

/** The most links a count counts: past it, `capped` says there are more. */
export const MAX_COUNTED_LINKS = 1000

export const LinkCount = Type.Object({
  total: Type.Integer({
    minimum: 0,
    maximum: MAX_COUNTED_LINKS,
    description: `How many links the list has with these filters, up to ${MAX_COUNTED_LINKS}`,
  }),
  capped: Type.Boolean({
    description: `True when the list has more than ${MAX_COUNTED_LINKS} links: \`total\` is then ${MAX_COUNTED_LINKS}`,
  }),
})
export type LinkCount = Static<typeof LinkCount>

export const LinkQuery = Type.Object(
  {
    ...PageQuery.properties,
    ...LinkFilterQuery.properties,
    sort: Type.Optional(
      Type.Union([Type.Literal('newest'), Type.Literal('clicks_30d')], {
        description:
          '`newest` (default): newest first; `clicks_30d`: most clicks in the last 30 days first, then newest id',
      }),
    ),
  },
  { additionalProperties: false },
)
export type LinkQuery = Static<typeof LinkQuery>

/** Whether a slug is free for a new link of yours, or of one of your organizations. */
export const SlugAvailabilityQuery = Type.Object(
  {
    slug: Slug,
    organization_id: Type.Optional(Id),
  },
  { additionalProperties: false },
)
export type SlugAvailabilityQuery = Static<typeof SlugAvailabilityQuery>

export const SlugAvailability = Type.Object({
  slug: Type.String(),
  available: Type.Boolean({
    description: 'false when another link of the same owner has this slug, ignoring case',
  }),
})
export type SlugAvailability = Static<typeof SlugAvailability>

const fields = {
  url: Url,
  title: Title,
  slug: Nullable(Slug),
  forwarding_enabled: Type.Boolean(),
  tag_ids: TagIds,
  team_ids: TeamIds,
  organization_id: Nullable(Id),
}

export const CreateLinkBody = Body({
  url: fields.url,
  title: Type.Optional(fields.title),
  slug: Type.Optional(fields.slug),
  forwarding_enabled: Type.Optional(Type.Boolean({ default: true })),
  tag_ids: Type.Optional(fields.tag_ids),
  team_ids: Type.Optional(fields.team_ids),
  organization_id: Type.Optional(fields.organization_id),
})
export type CreateLinkBody = Static<typeof CreateLinkBody>

export const UpdateLinkBody = Body(
  {
    url: Type.Optional(fields.url),
    title: Type.Optional(fields.title),
    slug: Type.Optional(fields.slug),
    forwarding_enabled: Type.Optional(fields.forwarding_enabled),
    tag_ids: Type.Optional(fields.tag_ids),
    team_ids: Type.Optional(fields.team_ids),
    organization_id: Type.Optional(fields.organization_id),
  },
  { minProperties: 1 },
)
export type UpdateLinkBody = Static<typeof UpdateLinkBody>

/** A link in "Recently deleted": restorable until `purge_at`. */
export const DeletedLinkView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  title: Nullable(Type.String()),
  slug: Nullable(Type.String()),
  organization_id: Nullable(Type.String({ description: 'null for a personal link' })),
  deleted_at: Timestamp(),
  purge_at: Type.String({
    format: 'date-time',
    description: '30 days after deleted_at: then it is gone for good',
  }),
})
export type DeletedLinkView = Static<typeof DeletedLinkView>
export const DeletedLinkPage = PageOf(DeletedLinkView)

export const RestoreLinkBody = Body({
  slug: Type.Optional(
    Type.Union([Slug, Type.Null()], {
      description:
        'Omitted: the slug it had. Another slug, or null for none, when that one is taken meanwhile (409 on slug)',
    }),
  ),
})
export type RestoreLinkBody = Static<typeof RestoreLinkBody>

export const TransferLinkBody = Body({
  user_id: Type.Optional(Id),
  organization_id: Type.Optional(Id),
})
export type TransferLinkBody = Static<typeof TransferLinkBody>

/**
 * Who owns the link now (the caller may no longer see it: a person's personal link is theirs
 * alone).
 */
export const TransferredLink = Type.Object({
  id: Type.String(),
  user_id: Nullable(Type.String({ description: 'The new owner, for a personal link' })),
  organization_id: Nullable(Type.String({ description: 'The new owner, for a shared link' })),
})
export type TransferredLink = Static<typeof TransferredLink>

/** GET/PUT /api/admin/settings/go-links: how slugs are matched across the instance. */
export const GoLinkSettingsView = Type.Object(
  {
    fold_separators: Type.Boolean({
      description:
        'false (default): slugs match ignoring case only. true: also ignoring "-" and "_" — go/meeting-notes and go/meetingnotes are one link',
    }),
    updated_at: Nullable(Timestamp()),
  },
  { title: 'GoLinkSettings', additionalProperties: false },
)
export type GoLinkSettingsView = Static<typeof GoLinkSettingsView>

export const UpdateGoLinkSettingsBody = Body({ fold_separators: Type.Boolean() })
export type UpdateGoLinkSettingsBody = Static<typeof UpdateGoLinkSettingsBody>

/** GET /api/links/go-preview: the link dialog's live preview. */
export const GoPreviewQuery = Type.Object(
  {
    url: Text({
      minLength: 1,
      maxLength: 2048,
      description: 'A destination as typed: a URL or a template',
    }),
    path: Type.Optional(
      Text({
        minLength: 0,
        maxLength: 1024,
        description: 'What follows go/<slug>/, percent-encoded as in a request',
      }),
    ),
    query: Type.Optional(
      Text({ minLength: 0, maxLength: 1024, description: 'The query string, without "?"' }),
    ),
  },
  { additionalProperties: false },
)
export type GoPreviewQuery = Static<typeof GoPreviewQuery>

export const GoPreview = Type.Object({
  url: Nullable(Type.String({ description: 'Where /go/<slug>/<path>?<query> would redirect' })),
  refusal: Nullable(
    Type.Union(
      [
        Type.Literal('bad-encoding'),
        Type.Literal('dot-segment'),
        Type.Literal('other-host'),
        Type.Literal('too-long'),
        Type.Literal('invalid'),
      ],
      {
        description:
          'Why the redirect would be refused (invalid: the destination itself is not acceptable)',
      },
    ),
  ),
})
export type GoPreview = Static<typeof GoPreview>

/** The most links one bulk action takes: a page of the list and then some. */
export const MAX_BULK_LINKS = 100

/** POST /api/links/bulk: one action on several links, all or nothing. */
export const BulkLinksBody = Body({
  link_ids: Type.Array(Id, {
    minItems: 1,
    maxItems: MAX_BULK_LINKS,
    uniqueItems: true,
    description: 'Links you can see',
  }),
  action: Type.Union(
    [
      Type.Literal('add_tag'),
      Type.Literal('remove_tag'),
      Type.Literal('share'),
      Type.Literal('delete'),
    ],
    {
      description:
        '`add_tag`/`remove_tag`: one of your own tags (`tag_id`) on every link you can see; `share`: move the links to `organization_id` ' +
        '(null: your personal links), as PATCH would; `delete`: delete them. `share` and `delete` need the right to change each link.',
    },
  ),
  tag_id: Type.Optional(Id),
  organization_id: Type.Optional(Nullable(Id)),
})
export type BulkLinksBody = Static<typeof BulkLinksBody>

export const BulkLinksResult = Type.Object({
  action: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Links the action was applied to' }),
})
export type BulkLinksResult = Static<typeof BulkLinksResult>

/** POST /api/links/fetch-title. */
export const FetchTitleBody = Body({ url: Url })
export type FetchTitleBody = Static<typeof FetchTitleBody>

export const FetchedTitle = Type.Object({
  url: Type.String({ description: 'The URL as it would be stored (normalised)' }),
  title: Nullable(
    Type.String({
      description:
        "The page's `<title>`, cleaned and cut to 200 characters; null when it has none or is not HTML",
    }),
  ),
})

/** The teams a person may share links and collections with (the share pickers' list). */
export const ShareableTeamList = Type.Object({
  items: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
    maxItems: 1000,
    description: 'Your teams (an administrator: every team), by name ignoring case',
  }),
})
export type ShareableTeamList = Static<typeof ShareableTeamList>
