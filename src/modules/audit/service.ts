/**
 * Writing the audit trail (CONTRACT.md §8.4). Callers pass the transaction that makes the change,
 * so the event exists exactly when the change does. Events name who, what and where — never a
 * secret, code or token: metadata is for field names, roles and similar facts.
 */
import type { Executor } from '../../db/schema.js'
import type { Clock } from '../../lib/time.js'
import { insertAuditEvent } from './repo.js'

/** Where a request came from: recorded with every change it makes. */
export interface RequestContext {
  ip: string | null
  userAgent: string | null
}

export interface Actor {
  id: string
  email: string
}

export interface AuditEntry {
  action: string
  actor: Actor | null
  target?: { type: string; id: string }
  metadata?: Record<string, unknown>
}

export async function recordAudit(ex: Executor, clock: Clock, ctx: RequestContext, entry: AuditEntry): Promise<void> {
  await insertAuditEvent(ex, {
    at: clock.now().toISOString(),
    actorId: entry.actor?.id ?? null,
    actorEmail: entry.actor?.email ?? null,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    ip: ctx.ip,
    metadata: entry.metadata ?? {},
  })
}
