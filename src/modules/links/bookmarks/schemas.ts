import { Type, type Static } from '@sinclair/typebox'
import { DuplicateLink } from '../duplicates.schemas.js'
import { Body, Nullable, Text, Timestamp } from '../../../lib/schema-types.js'
import { LinkFilterQuery } from '../schemas.js'

/**
 * The largest JSON request of an import (the file as a string inside it): for scripts and small
 * files.
 */
export const IMPORT_BODY_LIMIT_BYTES = 1024 * 1024
/**
 * The largest file uploaded as it is (POST /api/links/import/file), streamed: a browser's export
 * with a favicon per bookmark (Firefox: ≈5 KB each) of a few thousand bookmarks.
 */
export const IMPORT_FILE_LIMIT_BYTES = 20 * 1024 * 1024
/**
 * The most bookmarks one import takes (also bounds the report), enforced while the file is read.
 */
export const MAX_IMPORT_ITEMS = 20_000
/** The most links one export writes: the newest. */
export const MAX_EXPORT_ITEMS = 10_000

const Format = Type.Union([Type.Literal('html'), Type.Literal('json')], {
  description:
    "`html`: the Netscape bookmark file browsers export and import; `json`: Switchboard's own export",
})

export const ExportQuery = Type.Object(
  { format: Format, ...LinkFilterQuery.properties },
  { additionalProperties: false },
)
export type ExportQuery = Static<typeof ExportQuery>

export const ExportedLink = Type.Object({
  url: Type.String(),
  title: Nullable(Type.String()),
  slug: Nullable(Type.String()),
  forwarding_enabled: Type.Boolean(),
  tags: Type.Array(Type.String(), { description: 'Names of your own tags on the link' }),
  organization: Nullable(Type.String({ description: "The organization's name for a shared link" })),
  clicks: Type.Array(
    Type.Object({ day: Type.String({ format: 'date' }), clicks: Type.Integer({ minimum: 0 }) }),
    {
      description:
        'Redirects through /go/{slug} per UTC day, for every kept day (400) that had any, oldest first; not read back by the import',
    },
  ),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

export const ExportedCollection = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  links: Type.Array(Type.Integer({ minimum: 0 }), {
    description:
      "The collection's links in its order, as positions in this document's `links` (from 0); only exported links are named",
  }),
})

export const LinkExport = Type.Object({
  format: Type.Literal('switchboard-links'),
  version: Type.Literal(1),
  exported_at: Timestamp(),
  truncated: Type.Boolean({
    description: `true when more links matched than one export holds (${MAX_EXPORT_ITEMS}, the newest)`,
  }),
  links: Type.Array(ExportedLink),
  collections: Type.Array(ExportedCollection, {
    description:
      'The collections you see that hold an exported link — every one you see when the export is not filtered — by name ignoring case; ' +
      'the import makes them again (or adds to the ones of the same name)',
  }),
})
export type LinkExport = Static<typeof LinkExport>

const FoldersAsTags = Type.Boolean({
  default: false,
  description:
    "A bookmark file's folders always become collections, named by their path (`Work/Projects`); with true, the path is also a tag " +
    'on each bookmark in them. The browser\'s toolbar and "Other bookmarks" folders are left out. Ignored for JSON.',
})

const CreateTags = Type.Boolean({
  default: true,
  description:
    "false: only tags you have already are put on the imported links; the file's other tag names " +
    "are left out (listed in the report's `new_tags`). A name is a tag you have when it matches " +
    'ignoring case or a plain plural ("Comics" is your "comic").',
})

const DryRun = Type.Boolean({
  default: false,
  description:
    'true: answer the report of what the import would do — counts, skipped bookmarks, the tags it ' +
    'would create (`new_tags`) — and write nothing (no links, tags or collections, no audit event)',
})

export const ImportBody = Body({
  format: Format,
  // Plain String: a file has line breaks and tabs, which Text() refuses; the importer cleans every
  // value it keeps.
  content: Type.String({
    minLength: 1,
    maxLength: IMPORT_BODY_LIMIT_BYTES,
    description:
      'The file as text: a bookmark HTML file, or a JSON export (or an array of its link objects)',
  }),
  organization_id: Type.Optional(
    Nullable(
      Text({
        minLength: 1,
        maxLength: 200,
        description: 'Share every imported link with this organization; personal when absent',
      }),
    ),
  ),
  folders_as_tags: Type.Optional(FoldersAsTags),
  create_tags: Type.Optional(CreateTags),
  dry_run: Type.Optional(DryRun),
})
export type ImportBody = Static<typeof ImportBody>

export const ImportFileQuery = Type.Object(
  {
    format: Format,
    folders_as_tags: Type.Optional(FoldersAsTags),
    create_tags: Type.Optional(CreateTags),
    dry_run: Type.Optional(DryRun),
    organization_id: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 200,
        description: 'Share every imported link with this organization; personal when absent',
      }),
    ),
  },
  { additionalProperties: false },
)
export type ImportFileQuery = Static<typeof ImportFileQuery>

/**
 * Documents the body of POST /api/links/import/file (it is read as a stream, never validated
 * whole): any media type is taken (the catch-all range), the others are the ones clients send.
 */
export const ImportFileBody = Type.Unsafe<string>({
  description: `The file itself, as the browser wrote it (UTF-8), up to ${IMPORT_FILE_LIMIT_BYTES / (1024 * 1024)} MiB; the format is the query's, whatever the Content-Type`,
  content: {
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    'text/html': { schema: { type: 'string' } },
    'application/json': {
      schema: { description: 'A JSON export, or an array of its link objects' },
    },
    // Any other type too (never a 415): the bytes are the file, read as the query's format.
    '*/*': { schema: { type: 'string', format: 'binary' } },
  },
})

export const SkippedBookmark = Type.Object({
  position: Type.Integer({ minimum: 1, description: "The bookmark's place in the file, from 1" }),
  url: Nullable(Type.String({ description: 'As written in the file, cut to 300 characters' })),
  reason: Type.Union(
    [
      Type.Literal('invalid_item'),
      Type.Literal('invalid_url'),
      Type.Literal('invalid_slug'),
      Type.Literal('duplicate_url'),
      Type.Literal('slug_taken'),
    ],
    { description: 'Why it was not imported' },
  ),
  message: Type.String(),
})

/** How many of the imported links and tags the report names (the report links to them). */
export const REPORTED_LINKS = 100

export const ImportedCollection = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created: Type.Boolean({ description: 'false: an existing collection of this name was added to' }),
  links_added: Type.Integer({
    minimum: 0,
    description:
      "Links put into it (imported, or yours already by URL); 0 for an organization's collection you may not change",
  }),
})

export const ImportReport = Type.Object({
  imported: Type.Integer({ minimum: 0, description: 'Links created' }),
  tags_created: Type.Integer({
    minimum: 0,
    description:
      'New tags made from the file: a name matching one of your tags, or one earlier in the ' +
      'file, ignoring case or a plain plural ("comic", "Comics"), is that tag',
  }),
  collections_created: Type.Integer({ minimum: 0 }),
  collections: Type.Array(ImportedCollection, {
    maxItems: REPORTED_LINKS,
    description: `The collections the file's folders (or a JSON export's collections) went into, up to ${REPORTED_LINKS}, in file order`,
  }),
  skipped: Type.Array(SkippedBookmark),
  links: Type.Array(
    Type.Object({ id: Type.String(), url: Type.String(), title: Nullable(Type.String()) }),
    {
      maxItems: REPORTED_LINKS,
      description: `The first ${REPORTED_LINKS} links created, in file order`,
    },
  ),
  tags: Type.Array(Type.String(), {
    maxItems: REPORTED_LINKS,
    description: `Names of the tags put on the imported links (up to ${REPORTED_LINKS}, by name), to list them by tag`,
  }),
  new_tags: Type.Array(Type.String(), {
    maxItems: REPORTED_LINKS,
    description: `Names of the tags the file has that you had not (up to ${REPORTED_LINKS}, by name): created, or left out with \`create_tags: false\``,
  }),
  new_tags_left_out: Type.Boolean({
    description: 'true when `new_tags` were left out (`create_tags: false`), not created',
  }),
  dry_run: Type.Boolean({
    description:
      'true: nothing was written — the counts and names are what the import would do; `links`, ' +
      '`collections` and `already_saved` are empty',
  }),
  already_saved: Type.Array(
    Type.Object({ url: Type.String(), links: Type.Array(DuplicateLink, { maxItems: 20 }) }),
    {
      maxItems: REPORTED_LINKS,
      description:
        'Of the reported links, those whose page you could already see under another link ' +
        '(same URL key, docs/API.md#duplicates), with those links',
    },
  ),
})
export type ImportReport = Static<typeof ImportReport>
