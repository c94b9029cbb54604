/**
 * The audit trail (docs/API.md#audit-log): writing it, and reading it for administrators. Writers
 * pass the transaction that makes the change, so the event exists exactly when the change does.
 * Events name who, what and where — never a secret, code or token: metadata is for field names,
 * roles and similar facts.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { pageWindow } from '../../db/keyset.js'
import { toPage, type Page } from '../../lib/pagination.js'
import type { Clock } from '../../lib/time.js'
import type { RequestContext } from '../../identity/caller.js'
import { queueSecurityNotification } from '../notifications/queue.js'
import {
  insertAuditEvents,
  listAuditEvents,
  type AuditEvent,
  type AuditEventRow,
  type AuditFilter,
} from './repo.js'
import { findTargetLabels } from './labels.repo.js'
import type { AuditMetadata } from './fact-keys.js'
import type { AuditEventListItem, AuditEventView, AuditLogQuery } from './schemas.js'

export interface Actor {
  id: string
  email: string
}

export interface AuditEntry {
  action: string
  actor: Actor | null
  target?: { type: string; id: string }
  metadata?: AuditMetadata
}

const USER_AGENT_MAX = 512

/**
 * Whose account an event concerns (the personal security log reads by it): the user it
 * targets, else the user who acted (an API token they created, a passkey they added).
 */
function subjectOf(entry: AuditEntry): string | null {
  return entry.target?.type === 'user' ? entry.target.id : (entry.actor?.id ?? null)
}

/**
 * Writes the event and, in the same transaction, queues the security notification it calls for
 * (notifications/kinds.ts), so a mail exists exactly when its change does and goes out after
 * commit.
 */
export async function recordAudit(
  ex: Executor,
  clock: Clock,
  ctx: RequestContext,
  entry: AuditEntry,
): Promise<void> {
  await recordAudits(ex, clock, ctx, [entry])
}

/**
 * Several events of one change, in this order, as recordAudit writes one: every notification
 * first, then one append for all of them — the append locks the audit tree's head until the commit
 * (docs/decisions/0047-audit-appends-flush-after-commit.md), so it is the transaction's last
 * statement, and a second append would be one more round trip under the lock.
 */
export async function recordAudits(
  ex: Executor,
  clock: Clock,
  ctx: RequestContext,
  entries: AuditEntry[],
): Promise<void> {
  const userAgent = ctx.userAgent?.slice(0, USER_AGENT_MAX) ?? null
  const events: AuditEvent[] = []
  for (const entry of entries) {
    const subjectUserId = subjectOf(entry)
    const metadata = entry.metadata ?? {}
    await queueSecurityNotification(ex, clock, {
      action: entry.action,
      subjectUserId,
      actorId: entry.actor?.id ?? null,
      ip: ctx.ip,
      userAgent,
      metadata,
    })
    events.push({
      at: clock.now().toISOString(),
      actorId: entry.actor?.id ?? null,
      actorEmail: entry.actor?.email ?? null,
      action: entry.action,
      targetType: entry.target?.type ?? null,
      targetId: entry.target?.id ?? null,
      ip: ctx.ip,
      userAgent,
      subjectUserId,
      metadata,
    })
  }
  // Last: the append locks the tree head until commit, so every other write of the change comes
  // first.
  await insertAuditEvents(ex, events)
}

/**
 * Any offset the client used becomes the stored form, so the comparison is by instant. Every event
 * is later than 1970; an earlier bound (which PostgreSQL might not even represent) is clamped:
 * `since` then filters nothing, and `until` matches nothing.
 */
function storedInstant(at: string): string {
  const time = new Date(at).getTime()
  return time > 0 ? new Date(time).toISOString() : new Date(0).toISOString()
}

/** The filters of the list and of its export, in the stored form. */
export function auditFilterOf(
  query: Pick<AuditLogQuery, 'action' | 'actor_id' | 'since' | 'until'>,
): AuditFilter {
  return {
    ...(query.action !== undefined && { action: query.action }),
    ...(query.actor_id !== undefined && { actorId: query.actor_id }),
    ...(query.since !== undefined &&
      new Date(query.since).getTime() > 0 && { since: storedInstant(query.since) }),
    ...(query.until !== undefined && { until: storedInstant(query.until) }),
  }
}

export function toAuditEventView(row: AuditEventRow): AuditEventView {
  return { ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }
}

/**
 * The trail for administrators (docs/API.md#audit-log): newest first, filtered by action prefix,
 * actor and time; each event with its target's current name (one more query per page).
 */
export async function listAuditLog(
  deps: Deps,
  query: AuditLogQuery,
): Promise<Page<AuditEventListItem>> {
  const window = pageWindow(query)
  const rows = await listAuditEvents(deps.db, auditFilterOf(query), window)
  const targets = rows.flatMap((row) =>
    row.target_type !== null && row.target_id !== null
      ? [{ type: row.target_type, id: row.target_id }]
      : [],
  )
  const labels = await findTargetLabels(deps.db, targets)
  return toPage(
    rows,
    window.limit,
    (row) => ({
      ...toAuditEventView(row),
      target_label: labels.get(`${row.target_type}:${row.target_id}`) ?? null,
    }),
    (row) => [row.at, row.id],
  )
}
