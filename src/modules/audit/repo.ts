import type { Executor } from '../../db/schema.js'
import { newId } from '../../lib/ids.js'

export interface AuditEvent {
  at: string
  actorId: string | null
  actorEmail: string | null
  action: string
  targetType: string | null
  targetId: string | null
  ip: string | null
  metadata: Record<string, unknown>
}

export async function insertAuditEvent(ex: Executor, event: AuditEvent): Promise<void> {
  await ex
    .insertInto('audit_events')
    .values({
      id: newId(),
      at: event.at,
      actor_id: event.actorId,
      actor_email: event.actorEmail,
      action: event.action,
      target_type: event.targetType,
      target_id: event.targetId,
      ip: event.ip,
      metadata: JSON.stringify(event.metadata),
    })
    .execute()
}
