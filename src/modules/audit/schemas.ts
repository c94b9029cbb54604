import { Type, type Static } from '@sinclair/typebox'
import { Nullable, PageOf, PageQuery, Text, Timestamp } from '../../lib/schema-types.js'

/** docs/API.md#audit-log. */
export const AuditEventView = Type.Object({
  id: Type.String(),
  at: Timestamp(),
  actor_id: Nullable(
    Type.String({ description: 'null for the operator (command line) or an anonymous caller' }),
  ),
  actor_email: Nullable(Type.String({ description: 'The email at the time of the event' })),
  action: Type.String({ examples: ['org.create', 'admin.user_update'] }),
  target_type: Nullable(Type.String({ examples: ['user', 'organization', 'team'] })),
  target_id: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  metadata: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'Non-secret facts about the change (field names, roles, …)',
    },
  ),
})
export type AuditEventView = Static<typeof AuditEventView>

/**
 * A listed event also says what its target is called today (null when it has no name or is gone).
 */
export const AuditEventListItem = Type.Object({
  ...AuditEventView.properties,
  target_label: Nullable(
    Type.String({
      description:
        "The target's current name: a user's email, an organization's, team's, token's, passkey's, identity provider's or SCIM credential's name",
    }),
  ),
})
export type AuditEventListItem = Static<typeof AuditEventListItem>

export const AuditEventPage = PageOf(AuditEventListItem)

/** The filters the list and its export share. */
const AuditFilterQuery = {
  action: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 100,
      description:
        'Actions starting with this text: `token` selects `token.create`; a whole action selects itself',
    }),
  ),
  actor_id: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
  since: Type.Optional({
    ...Timestamp(),
    description: 'Events at or after this instant (any offset)',
  }),
  until: Type.Optional({ ...Timestamp(), description: 'Events before this instant (any offset)' }),
}

export const AuditLogQuery = Type.Object(
  { ...PageQuery.properties, ...AuditFilterQuery },
  { additionalProperties: false },
)
export type AuditLogQuery = Static<typeof AuditLogQuery>

export const AUDIT_EXPORT_FORMATS = ['csv', 'jsonl', 'verifiable'] as const
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number]

export const AuditExportQuery = Type.Object(
  {
    format: Type.Unsafe<AuditExportFormat>({
      type: 'string',
      enum: [...AUDIT_EXPORT_FORMATS],
      description:
        'csv (RFC 4180), jsonl (JSON Lines), or verifiable (JSON Lines oldest first, each line with its leaf index and hash, after a header with the signed checkpoint; filtered: each with its inclusion proof)',
    }),
    ...AuditFilterQuery,
  },
  { additionalProperties: false },
)
export type AuditExportQuery = Static<typeof AuditExportQuery>

/** The export's media types: the body is a stream of text, not one JSON document. */
export const AUDIT_EXPORT_MEDIA_TYPES: Record<AuditExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/jsonl; charset=utf-8',
  verifiable: 'application/jsonl; charset=utf-8',
}
