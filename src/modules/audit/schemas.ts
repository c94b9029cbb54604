import { Type, type Static } from '@sinclair/typebox'
import { Nullable, PageOf, PageQuery, Text, Timestamp } from '../../lib/schema-types.js'

/** CONTRACT.md §8.4. */
export const AuditEventView = Type.Object({
  id: Type.String(),
  at: Timestamp(),
  actor_id: Nullable(Type.String({ description: 'null for the operator (command line) or an anonymous caller' })),
  actor_email: Nullable(Type.String({ description: 'The email at the time of the event' })),
  action: Type.String({ examples: ['org.create', 'admin.user_update'] }),
  target_type: Nullable(Type.String({ examples: ['user', 'organization', 'team'] })),
  target_id: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  metadata: Type.Object({}, { additionalProperties: true, description: 'Non-secret facts about the change (field names, roles, …)' }),
})
export type AuditEventView = Static<typeof AuditEventView>

export const AuditEventPage = PageOf(AuditEventView)

export const AuditLogQuery = Type.Object(
  {
    ...PageQuery.properties,
    action: Type.Optional(Text({ minLength: 1, maxLength: 100, description: 'Exactly this action' })),
    actor_id: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
    since: Type.Optional(Timestamp()),
  },
  { additionalProperties: false },
)
export type AuditLogQuery = Static<typeof AuditLogQuery>
