/**
 * SQL for the personal security log: one range of the audit trail's (subject_user_id, at, id)
 * index.
 */
import type { Executor } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'

export interface SecurityEventRow {
  id: string
  at: string
  action: string
  actor_id: string | null
  ip: string | null
  user_agent: string | null
  metadata: string
}

export async function listSecurityEvents(
  ex: Executor,
  userId: string,
  actions: readonly string[],
  window: PageWindow,
): Promise<SecurityEventRow[]> {
  const query = ex
    .selectFrom('audit_events')
    .select(['id', 'at', 'action', 'actor_id', 'ip', 'user_agent', 'metadata'])
    .where('subject_user_id', '=', userId)
    .where('action', 'in', [...actions])
  return newestFirst(query, window, 'audit_events', 'at').execute()
}
