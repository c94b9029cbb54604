import { PostgresAdapter, sql, type Insertable, type Selectable } from 'kysely'
import type { AuditEventsTable, Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { newId } from '../../lib/ids.js'
import type { NodeId } from '../../lib/merkle.js'
import { eventLeafHash, LEAF_COLUMNS, leafEventOf, type StoredEvent } from './leaf.js'
import { insertTreeNodes, lockTreeHead, nodeRows, treeHeadValues, updateTreeHead } from './tree.repo.js'

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
 * Writes events and appends them to the audit Merkle tree (issue 30) in one transaction — the
 * caller's, or one of its own. This is the only function that writes audit events, so every event,
 * however it is recorded, becomes a leaf. The tree head row is locked (FOR UPDATE on PostgreSQL;
 * SQLite serialises writers) from the read of the size to the commit, so instances sharing a
 * database number leaves in commit order without gaps or duplicates.
 */
export async function insertAuditEvents(ex: Executor, events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return
  if (!ex.isTransaction) return ex.transaction().execute((tx) => insertAuditEvents(tx, events))
  const tree = await lockTreeHead(ex)
  const rows: Array<Insertable<AuditEventsTable>> = []
  const nodes: Array<NodeId & { hash: Buffer }> = []
  for (const event of events) {
    const row = {
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
    }
    rows.push({ ...row, leaf_index: tree.size })
    nodes.push(...tree.append(eventLeafHash(leafEventOf(row))))
  }
  if (ex.getExecutor().adapter instanceof PostgresAdapter && rows.length <= INSERT_CHUNK && nodes.length <= INSERT_CHUNK) {
    // One round trip while the head is locked (data-modifying CTEs): the lock is held for the
    // shortest time, which is what bounds how many audited changes per second PostgreSQL commits.
    await ex
      .with('written_events', (db) => db.insertInto('audit_events').values(rows).returning('id'))
      .with('written_nodes', (db) => db.insertInto('audit_tree_nodes').values(nodeRows(nodes)).returning('idx'))
      .updateTable('audit_tree_head')
      .set(treeHeadValues(tree))
      .where('id', '=', 1)
      .execute()
    return
  }
  // In chunks: SQLite and PostgreSQL bound the parameters of one statement.
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    await ex
      .insertInto('audit_events')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute()
  for (let i = 0; i < nodes.length; i += INSERT_CHUNK) await insertTreeNodes(ex, nodes.slice(i, i + INSERT_CHUNK))
  await updateTreeHead(ex, tree)
}

const INSERT_CHUNK = 500

export async function insertAuditEvent(ex: Executor, event: AuditEvent): Promise<void> {
  await insertAuditEvents(ex, [event])
}

export type AuditEventRow = Omit<Selectable<AuditEventsTable>, 'subject_user_id' | 'user_agent' | 'leaf_index'>

export interface AuditFilter {
  /** Issue 32: a prefix — `token` selects `token.create` and `token.revoke`; a whole action selects itself. */
  action?: string
  actorId?: string
  /** ISO-8601 UTC as stored (toISOString), so text comparison on SQLite orders like time. */
  since?: Timestamp
  /** Exclusive upper bound, in the same stored form. */
  until?: Timestamp
}

/** Events newest first, by (at, id); each filter narrows through its own index. */
export async function listAuditEvents(ex: Executor, filter: AuditFilter, window: PageWindow): Promise<AuditEventRow[]> {
  let query = ex.selectFrom('audit_events').select(['id', 'at', 'actor_id', 'actor_email', 'action', 'target_type', 'target_id', 'ip', 'metadata'])
  // substr, not LIKE: the same case-sensitive comparison on both engines, and no wildcard to escape.
  if (filter.action !== undefined) query = query.where(sql<string>`substr(action, 1, ${filter.action.length})`, '=', filter.action)
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId)
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('at', '<', filter.until)
  return newestFirst(query, window, 'audit_events', 'at').execute()
}

/**
 * Events matching an export's filters, as leaves of the tree of `size`: leaf numbers after `after`,
 * in leaf order, at most `limit` (the verifiable export pages through them with keyset on leaf_index).
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
