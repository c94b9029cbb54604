import { sql, type Insertable, type Selectable } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { AuditEventsTable, Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { newId } from '../../lib/ids.js'
import { eventLeafHash, LEAF_COLUMNS, leafEventOf, type StoredEvent } from './leaf.js'
import { appendEventsPostgres, lockTreeHead, updateTreeHead } from './tree.repo.js'

export interface AuditEvent {
  at: string
  actorId: string | null
  actorEmail: string | null
  action: string
  targetType: string | null
  targetId: string | null
  ip: string | null
  userAgent: string | null
  /** Whose account the event concerns (the personal security log). */
  subjectUserId: string | null
  metadata: Record<string, unknown>
}

/**
 * Writes events and appends them to the audit Merkle tree in one transaction — the
 * caller's, or one of its own. This is the only function that writes audit events, so every event,
 * however it is recorded, becomes a leaf. The tree head row is locked (on PostgreSQL by the
 * statement that updates it; SQLite serialises writers) from the read of the size to the commit, so
 * instances sharing a database number leaves in commit order without gaps or duplicates.
 *
 * What the transaction writes is the event with its leaf number and the head's new size and
 * frontier (the O(log n) perfect-subtree hashes, one row): the frontier fixes every leaf hash
 * at commit, so the root of any size is determined from then on. The tree's nodes — leaf hashes
 * and the subtrees above them, which proofs read — are stored afterwards in batches
 * (checkpoints.ts materializeTree, at least every second and before any reader needs them), which
 * checks the events against this frontier first. Writing them here cost an audited write about
 * four more database pages (WAL frames) than the event alone, and so its slowest percentile.
 * The leaf hashes (canonical JSON, SHA-256) are computed before the lock is taken.
 */
export async function insertAuditEvents(ex: Executor, events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return
  if (!ex.isTransaction) return ex.transaction().execute((tx) => insertAuditEvents(tx, events))
  const rows = events.map((event) => ({
    id: newId(),
    at: event.at,
    actor_id: event.actorId,
    actor_email: event.actorEmail,
    action: event.action,
    target_type: event.targetType,
    target_id: event.targetId,
    ip: event.ip,
    user_agent: event.userAgent,
    subject_user_id: event.subjectUserId,
    metadata: JSON.stringify(event.metadata),
  }))
  const hashes = rows.map((row) => eventLeafHash(leafEventOf(row)))
  // PostgreSQL: one statement (tree.repo.ts appendEventsPostgres) numbers the leaves, writes the
  // events and moves the head, so the head is locked from that statement to the COMMIT and nothing
  // runs in between: the lock is held for the shortest time, which is what bounds how many audited
  // changes per second PostgreSQL commits.
  if (isPostgres(ex) && rows.length <= INSERT_CHUNK) return appendEventsPostgres(ex, rows, hashes)
  const tree = await lockTreeHead(ex)
  const numbered: Array<Insertable<AuditEventsTable>> = rows.map((row, i) => {
    tree.append(hashes[i]!)
    return { ...row, leaf_index: tree.size - 1 }
  })
  // In chunks: SQLite and PostgreSQL bound the parameters of one statement.
  for (let i = 0; i < numbered.length; i += INSERT_CHUNK)
    await ex
      .insertInto('audit_events')
      .values(numbered.slice(i, i + INSERT_CHUNK))
      .execute()
  await updateTreeHead(ex, tree)
}

const INSERT_CHUNK = 500

export async function insertAuditEvent(ex: Executor, event: AuditEvent): Promise<void> {
  await insertAuditEvents(ex, [event])
}

export type AuditEventRow = Omit<
  Selectable<AuditEventsTable>,
  'subject_user_id' | 'user_agent' | 'leaf_index'
>

export interface AuditFilter {
  /**
   * A prefix — `token` selects `token.create` and `token.revoke`; a whole action selects itself.
   */
  action?: string
  actorId?: string
  /** ISO-8601 UTC as stored (toISOString), so text comparison on SQLite orders like time. */
  since?: Timestamp
  /** Exclusive upper bound, in the same stored form. */
  until?: Timestamp
}

/** Events newest first, by (at, id); each filter narrows through its own index. */
export async function listAuditEvents(
  ex: Executor,
  filter: AuditFilter,
  window: PageWindow,
): Promise<AuditEventRow[]> {
  let query = ex
    .selectFrom('audit_events')
    .select([
      'id',
      'at',
      'actor_id',
      'actor_email',
      'action',
      'target_type',
      'target_id',
      'ip',
      'metadata',
    ])
  // substr, not LIKE: the same case-sensitive comparison on both engines, and no wildcard to
  // escape.
  if (filter.action !== undefined)
    query = query.where(sql<string>`substr(action, 1, ${filter.action.length})`, '=', filter.action)
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId)
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('at', '<', filter.until)
  return newestFirst(query, window, 'audit_events', 'at').execute()
}

/**
 * Events matching an export's filters, as leaves of the tree of `size`: leaf numbers after `after`,
 * in leaf order, at most `limit` (the verifiable export pages through them with keyset on
 * leaf_index).
 */
export async function listMatchingLeafEvents(
  ex: Executor,
  filter: AuditFilter,
  after: number,
  size: number,
  limit: number,
): Promise<Array<StoredEvent & { leaf_index: number }>> {
  let query = ex
    .selectFrom('audit_events')
    .select(['leaf_index', ...LEAF_COLUMNS])
    .where('leaf_index', '>', after)
    .where('leaf_index', '<', size)
  if (filter.action !== undefined) query = query.where('action', '=', filter.action)
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId)
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('at', '<', filter.until)
  const rows = await query.orderBy('leaf_index').limit(limit).execute()
  return rows.map((r) => ({ ...r, leaf_index: Number(r.leaf_index) }))
}
