/**
 * The audit log as an RFC 9162 Merkle tree.
 *
 * - audit_events gains `leaf_index` (unique): the event's leaf number, from 0 in commit order.
 * - audit_tree_nodes: the hash of every perfect subtree (level, idx) as lowercase hex — level 0 are
 *   the leaf hashes, which stay when an event's content is redacted.
 * - audit_tree_head: one row (id 1), locked by every append: the tree size and its frontier (the
 *   perfect subtrees making up the tree, as a JSON list of hex hashes).
 * - audit_checkpoints: signed checkpoints (C2SP signed-note text) by tree size.
 * - audit_monitor: one row (id 1): the last integrity check's result, the last anchoring and the
 *   webhook an administrator set for anchoring (null: mail only).
 *
 * Events written before this migration become the first leaves, in (at, id) order. The leaf form
 * (RFC 8785 canonical JSON of the event's columns, metadata parsed) is frozen here, as it is in
 * the application (modules/audit/leaf.ts): both must give the same bytes for ever.
 */
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

interface LegacyEvent {
  id: string
  at: string | Date
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string | null
  target_id: string | null
  ip: string | null
  user_agent: string | null
  subject_user_id: string | null
  metadata: string
}

const sha256 = (...parts: Buffer[]) => {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  const bigint = engine === 'postgres' ? 'bigint' : 'integer'
  await db.schema.alterTable('audit_events').addColumn('leaf_index', bigint).execute()
  await db.schema
    .createIndex('audit_events_leaf_idx')
    .unique()
    .on('audit_events')
    .column('leaf_index')
    .execute()
  await db.schema
    .createTable('audit_tree_nodes')
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', bigint, (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_tree_nodes_pk', ['level', 'idx'])
    .execute()
  await db.schema
    .createTable('audit_tree_head')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('frontier', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('tree_size', bigint, (c) => c.primaryKey())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('audit_monitor')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('checked_at', t.timestamp)
    .addColumn('check_ok', t.boolean)
    .addColumn('check_problem', 'text')
    .addColumn('checked_size', bigint)
    .addColumn('anchored_at', t.timestamp)
    .addColumn('anchor_webhook_url', 'text')
    .execute()
  await sql`insert into audit_monitor (id) values (1)`.execute(db)

  const events = (
    await sql<LegacyEvent>`select id, at, actor_id, actor_email, action, target_type, target_id, ip, user_agent, subject_user_id, metadata
      from audit_events order by at, id`.execute(db)
  ).rows
  const frontier: Buffer[] = []
  const nodes: Array<{ level: number; idx: number; hash: string }> = []
  for (const [index, event] of events.entries()) {
    const leaf = canonicalize({
      id: event.id,
      at: typeof event.at === 'string' ? event.at : event.at.toISOString(),
      actor_id: event.actor_id,
      actor_email: event.actor_email,
      action: event.action,
      target_type: event.target_type,
      target_id: event.target_id,
      ip: event.ip,
      user_agent: event.user_agent,
      subject_user_id: event.subject_user_id,
      metadata: JSON.parse(event.metadata) as unknown,
    })!
    let carry = sha256(Buffer.of(0), Buffer.from(leaf, 'utf8'))
    nodes.push({ level: 0, idx: index, hash: carry.toString('hex') })
    for (let level = 0; Math.floor(index / 2 ** level) % 2 === 1; level++) {
      carry = sha256(Buffer.of(1), frontier.pop()!, carry)
      nodes.push({
        level: level + 1,
        idx: Math.floor(index / 2 ** (level + 1)),
        hash: carry.toString('hex'),
      })
    }
    frontier.push(carry)
    await sql`update audit_events set leaf_index = ${index} where id = ${event.id}`.execute(db)
  }
  for (let i = 0; i < nodes.length; i += 500) {
    await (db as Kysely<{ audit_tree_nodes: { level: number; idx: number; hash: string } }>)
      .insertInto('audit_tree_nodes')
      .values(nodes.slice(i, i + 500))
      .execute()
  }
  const frontierJson = JSON.stringify(frontier.map((h) => h.toString('hex')))
  await sql`insert into audit_tree_head (id, size, frontier) values (1, ${events.length}, ${frontierJson})`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_monitor').execute()
  await db.schema.dropTable('audit_checkpoints').execute()
  await db.schema.dropTable('audit_tree_head').execute()
  await db.schema.dropTable('audit_tree_nodes').execute()
  await db.schema.dropIndex('audit_events_leaf_idx').execute()
  await db.schema.alterTable('audit_events').dropColumn('leaf_index').execute()
}
