/**
 * SQL of the audit Merkle tree: the head row, the stored perfect-subtree hashes, the
 * signed checkpoints and the monitor row. Hashes are stored as lowercase hex. The head is written
 * with every append; the nodes only up to its `materialized_size` (checkpoints.ts materializeTree).
 */
import { createHash } from 'node:crypto'
import { CompiledQuery, sql, type ExpressionBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import { ASYNC_COMMIT, flushAfterCommit } from '../../db/flush-after-commit.js'
import type { Database, Executor, Timestamp } from '../../db/schema.js'
import { Frontier, type NodeId } from '../../lib/merkle.js'
import { KEY_ROTATION_ACTION } from './key-chain.js'
import { LEAF_COLUMNS, type StoredEvent } from './leaf.js'

const HEAD_ID = 1
const MONITOR_ID = 1

/**
 * The frontier's text as last read or written by this process, parsed: every append reads the
 * head and writes it back with one or two hashes changed, so the next append usually finds the
 * text it wrote and reuses its hashes instead of decoding ~20 hex strings again. Keyed by the
 * exact text, so it is right whatever wrote the row.
 */
let lastFrontier: { text: string; hashes: Buffer[] } | null = null
/**
 * The hex form of each hash this process decoded or encoded, so writing a frontier encodes only the
 * new ones.
 */
const hexOf = new WeakMap<Buffer, string>()

function frontierOf(row: { size: number; frontier: string }): Frontier {
  if (lastFrontier?.text !== row.frontier) {
    const hashes = (JSON.parse(row.frontier) as string[]).map((hex) => {
      const hash = Buffer.from(hex, 'hex')
      hexOf.set(hash, hex)
      return hash
    })
    lastFrontier = { text: row.frontier, hashes }
  }
  // A copy of the list: appending changes the tree's own list, never the hashes themselves.
  return new Frontier(Number(row.size), [...lastFrontier.hashes])
}

/** PostgreSQL: the head, locked; `also`, more of the select list. */
const lockHeadPostgres = (also: string) =>
  CompiledQuery.raw(
    `select "size", "frontier"${also} from "audit_tree_head" where "id" = $1 for update`,
    [HEAD_ID],
  )

/**
 * The append's two statements on the head, as fixed SQL: built and compiled by Kysely on every
 * call they cost more than running them (about a quarter of an audited write's extra cost on
 * SQLite). Column names are the schema's (AuditTreeHeadTable).
 */
const LOCK_HEAD = {
  // SQLite serialises writers (BEGIN IMMEDIATE): no row lock there.
  sqlite: CompiledQuery.raw('select "size", "frontier" from "audit_tree_head" where "id" = ?', [
    HEAD_ID,
  ]),
  // The lock's transaction commits without holding the head through the WAL flush, and reports
  // its commit after it; with POSTGRES_AUDIT_COMMIT=plain the plain lock runs in its place and
  // the transaction commits as any other (db/flush-after-commit.ts).
  postgres: flushAfterCommit(lockHeadPostgres(`, ${ASYNC_COMMIT}`), lockHeadPostgres('')),
}
const UPDATE_HEAD = {
  sqlite: 'update "audit_tree_head" set "size" = ?, "frontier" = ? where "id" = ?',
  postgres: 'update "audit_tree_head" set "size" = $1, "frontier" = $2 where "id" = $3',
}

/**
 * PostgreSQL's append as one statement: the head's update takes its row lock, numbers the leaves
 * from the size it finds and computes the new frontier there (audit_frontier_append, migration
 * 0113), and the events are written with those numbers. Under READ COMMITTED an update that waited
 * for another append's commit is evaluated again on the head that append left, so leaves follow
 * commit order without gaps. `last` is the statement's select list.
 */
function appendSql(count: number, last: string): string {
  const width = LEAF_COLUMNS.length
  const columns = [...LEAF_COLUMNS, 'leaf_index'].map((column) => `"${column}"`).join(', ')
  const values = Array.from({ length: count }, (_, i) => {
    const params = LEAF_COLUMNS.map((_, c) => `$${3 + i * width + c}`).join(', ')
    return `(${params}, (select "first" from "appended_head") + ${i})`
  })
  return (
    `with "appended_head" as (update "audit_tree_head" set "size" = "size" + $1, ` +
    `"frontier" = audit_frontier_append("frontier", "size", $2) where "id" = ${HEAD_ID} ` +
    `returning "size" - $1 as "first"), "written_events" as (insert into "audit_events" ` +
    `(${columns}) values ${values.join(', ')}) select ${last} from "appended_head"`
  )
}

/** The append's text by number of events: the marked statement and its plain twin. */
const appendTexts = new Map<number, { grouped: string; plain: string }>()

function appendTextsOf(count: number): { grouped: string; plain: string } {
  let texts = appendTexts.get(count)
  if (texts === undefined) {
    texts = {
      grouped: appendSql(count, `"first", ${ASYNC_COMMIT}`),
      plain: appendSql(count, '"first"'),
    }
    appendTexts.set(count, texts)
  }
  return texts
}

/**
 * Appends events (at most a statement's parameters' worth) as the next leaves, on PostgreSQL: one
 * round trip, the transaction's last statement before its COMMIT. Its transaction commits without
 * holding the head through the WAL flush and reports its commit after it; with
 * POSTGRES_AUDIT_COMMIT=plain the plain twin runs and the transaction commits as any other
 * (db/flush-after-commit.ts).
 */
export async function appendEventsPostgres(
  tx: Executor,
  events: StoredEvent[],
  leafHashes: Buffer[],
): Promise<void> {
  const parameters: unknown[] = [events.length, leafHashes.map((hash) => hash.toString('hex'))]
  for (const event of events) for (const column of LEAF_COLUMNS) parameters.push(event[column])
  const texts = appendTextsOf(events.length)
  const { rows } = await tx.executeQuery(
    flushAfterCommit(
      CompiledQuery.raw(texts.grouped, parameters),
      CompiledQuery.raw(texts.plain, parameters),
    ),
  )
  if (rows.length !== 1) throw new Error('the audit tree head row is missing')
}

/** The tree head, locked until the transaction ends (SQLite: its writes are serialised already). */
export async function lockTreeHead(tx: Executor): Promise<Frontier> {
  const { rows } = await tx.executeQuery<{ size: number; frontier: string }>(
    LOCK_HEAD[isPostgres(tx) ? 'postgres' : 'sqlite'],
  )
  if (rows[0] === undefined) throw new Error('the audit tree head row is missing')
  return frontierOf(rows[0])
}

export async function readTreeHead(ex: Executor): Promise<Frontier> {
  return frontierOf(
    await ex
      .selectFrom('audit_tree_head')
      .select(['size', 'frontier'])
      .where('id', '=', HEAD_ID)
      .executeTakeFirstOrThrow(),
  )
}

/** The tree head and how many of its leaves have their nodes stored (migration 0034). */
export interface TreeState {
  tree: Frontier
  materializedSize: number
}

async function treeState(ex: Executor, lock: boolean): Promise<TreeState> {
  const query = ex
    .selectFrom('audit_tree_head')
    .select(['size', 'frontier', 'materialized_size'])
    .where('id', '=', HEAD_ID)
  const row = await (lock ? query.forUpdate() : query).executeTakeFirstOrThrow()
  return { tree: frontierOf(row), materializedSize: Number(row.materialized_size) }
}

export const readTreeState = (ex: Executor): Promise<TreeState> => treeState(ex, false)

/** The tree's size alone: what the checkpointer looks at ten times a second. */
export async function readTreeSize(ex: Executor): Promise<number> {
  const row = await ex
    .selectFrom('audit_tree_head')
    .select('size')
    .where('id', '=', HEAD_ID)
    .executeTakeFirstOrThrow()
  return Number(row.size)
}
/** As lockTreeHead: locked until the transaction ends. */
export const lockTreeState = (tx: Executor): Promise<TreeState> => treeState(tx, true)

export async function setMaterializedSize(tx: Executor, size: number): Promise<void> {
  await tx
    .updateTable('audit_tree_head')
    .set({ materialized_size: size })
    .where('id', '=', HEAD_ID)
    .execute()
}

/** The events of leaves [from, to), by leaf index (a leaf without its event is absent). */
export async function listLeafEvents(
  ex: Executor,
  from: number,
  to: number,
): Promise<Map<number, StoredEvent>> {
  const rows = await ex
    .selectFrom('audit_events')
    .select(['leaf_index', ...LEAF_COLUMNS])
    .where('leaf_index', '>=', from)
    .where('leaf_index', '<', to)
    .orderBy('leaf_index')
    .execute()
  const events = new Map<number, StoredEvent>()
  for (const { leaf_index: index, ...event } of rows) events.set(Number(index), event)
  return events
}

export function treeHeadValues(tree: Frontier): { size: number; frontier: string } {
  const hex = tree.hashes.map((hash) => {
    let text = hexOf.get(hash)
    if (text === undefined) {
      text = hash.toString('hex')
      hexOf.set(hash, text)
    }
    return text
  })
  const frontier = JSON.stringify(hex)
  // The next append reads this text back (if this transaction commits).
  lastFrontier = { text: frontier, hashes: [...tree.hashes] }
  return { size: tree.size, frontier }
}

export async function updateTreeHead(tx: Executor, tree: Frontier): Promise<void> {
  const { size, frontier } = treeHeadValues(tree)
  await tx.executeQuery(
    CompiledQuery.raw(UPDATE_HEAD[isPostgres(tx) ? 'postgres' : 'sqlite'], [
      size,
      frontier,
      HEAD_ID,
    ]),
  )
}

function nodeRows(
  nodes: Array<NodeId & { hash: Buffer }>,
): Array<{ level: number; idx: number; hash: string }> {
  return nodes.map((n) => ({ level: n.level, idx: n.index, hash: n.hash.toString('hex') }))
}

export async function insertTreeNodes(
  tx: Executor,
  nodes: Array<NodeId & { hash: Buffer }>,
): Promise<void> {
  await tx.insertInto('audit_tree_nodes').values(nodeRows(nodes)).execute()
}

const IN_LIST_MAX = 500

/** The stored hashes of these nodes, keyed `level:index`; missing ones are absent. */
export async function findTreeNodes(ex: Executor, ids: NodeId[]): Promise<Map<string, Buffer>> {
  const byLevel = new Map<number, number[]>()
  for (const { level, index } of ids) byLevel.set(level, [...(byLevel.get(level) ?? []), index])
  const found = new Map<string, Buffer>()
  for (const [level, indexes] of byLevel) {
    for (let i = 0; i < indexes.length; i += IN_LIST_MAX) {
      const rows = await ex
        .selectFrom('audit_tree_nodes')
        .select(['idx', 'hash'])
        .where('level', '=', level)
        .where('idx', 'in', indexes.slice(i, i + IN_LIST_MAX))
        .execute()
      for (const row of rows) found.set(`${level}:${Number(row.idx)}`, Buffer.from(row.hash, 'hex'))
    }
  }
  return found
}

export interface LeafRow {
  index: number
  /** The stored leaf hash (hex); null when the tree has no leaf there. */
  hash: string | null
  /** The event's columns; null when its content was redacted (or removed). */
  event: StoredEvent | null
}

/**
 * Leaves [from, to) in order, with the event each belongs to. Read from both sides (the nodes of
 * level 0 and the events by leaf_index) so a leaf without its event and an event without its leaf
 * both show.
 */
export async function listLeaves(
  ex: Executor,
  from: number,
  to: number,
): Promise<{ nodes: Map<number, string>; events: Map<number, StoredEvent> }> {
  const nodeRows = await ex
    .selectFrom('audit_tree_nodes')
    .select(['idx', 'hash'])
    .where('level', '=', 0)
    .where('idx', '>=', from)
    .where('idx', '<', to)
    .orderBy('idx')
    .execute()
  const nodes = new Map(nodeRows.map((r) => [Number(r.idx), r.hash]))
  return { nodes, events: await listLeafEvents(ex, from, to) }
}

/** The stored nodes above the leaves [from, to) (levels 1 and up), keyed `level:index`. */
export async function listInnerNodes(
  ex: Executor,
  from: number,
  to: number,
): Promise<Map<string, string>> {
  const rows = await ex
    .selectFrom('audit_tree_nodes')
    .select(['level', 'idx', 'hash'])
    .where((eb) => {
      const ranges = []
      for (let level = 1; 2 ** level <= to; level++) {
        const width = 2 ** level
        ranges.push(
          eb.and([
            eb('level', '=', level),
            eb('idx', '>=', Math.floor(from / width)),
            eb('idx', '<', Math.ceil(to / width)),
          ]),
        )
      }
      return eb.or(ranges)
    })
    .execute()
  return new Map(rows.map((r) => [`${r.level}:${Number(r.idx)}`, r.hash]))
}

/**
 * Events that are not leaves of the tree (written around the tree, or renumbered out of it): beyond
 * both `size` and the head as it is now. Events appended while a check ran are leaves of the head
 * by then (an append writes both in one transaction), not events outside the tree.
 *
 * Counted first, from the leaf index; the first of them (by time) is looked for only when there is
 * one: SQLite reads that one along the events' time index, which on an intact log means every
 * event, on the event loop's thread, at every check (decision 0081). PostgreSQL reads both from
 * the leaf index.
 */
export async function countEventsOutsideTree(
  ex: Executor,
  size: number,
): Promise<{ count: number; firstId: string | null }> {
  const outside = (eb: ExpressionBuilder<Database, 'audit_events'>) =>
    eb.or([
      eb('leaf_index', 'is', null),
      eb.and([
        eb('leaf_index', '>=', size),
        eb(
          'leaf_index',
          '>=',
          eb.selectFrom('audit_tree_head').select('size').where('id', '=', HEAD_ID),
        ),
      ]),
      eb('leaf_index', '<', 0),
    ])
  const counted = await ex
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(outside)
    .executeTakeFirstOrThrow()
  const count = Number(counted.n)
  if (count === 0) return { count, firstId: null }
  const first = await ex
    .selectFrom('audit_events')
    .select(['id'])
    .where(outside)
    .orderBy('at')
    .limit(1)
    .executeTakeFirst()
  return { count, firstId: first?.id ?? null }
}

export interface CheckpointRow {
  treeSize: number
  note: string
  createdAt: Timestamp
}

const toCheckpoint = (r: {
  tree_size: number
  note: string
  created_at: string
}): CheckpointRow => ({
  treeSize: Number(r.tree_size),
  note: r.note,
  createdAt: r.created_at,
})

export async function findLatestCheckpoint(ex: Executor): Promise<CheckpointRow | null> {
  const row = await ex
    .selectFrom('audit_checkpoints')
    .select(['tree_size', 'note', 'created_at'])
    .orderBy('tree_size', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? null : toCheckpoint(row)
}

/** The checkpoint at `size`, or the smallest after it. */
export async function findCheckpointCovering(
  ex: Executor,
  size: number,
): Promise<CheckpointRow | null> {
  const row = await ex
    .selectFrom('audit_checkpoints')
    .select(['tree_size', 'note', 'created_at'])
    .where('tree_size', '>=', size)
    .orderBy('tree_size')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? null : toCheckpoint(row)
}

export async function listCheckpoints(
  ex: Executor,
  after: number,
  limit: number,
): Promise<CheckpointRow[]> {
  const rows = await ex
    .selectFrom('audit_checkpoints')
    .select(['tree_size', 'note', 'created_at'])
    .where('tree_size', '>', after)
    .orderBy('tree_size')
    .limit(limit)
    .execute()
  return rows.map(toCheckpoint)
}

/**
 * Stores a checkpoint; another instance may have stored the same size first (then nothing changes).
 */
export async function insertCheckpoint(ex: Executor, checkpoint: CheckpointRow): Promise<void> {
  await ex
    .insertInto('audit_checkpoints')
    .values({
      tree_size: checkpoint.treeSize,
      note: checkpoint.note,
      created_at: checkpoint.createdAt,
    })
    .onConflict((oc) => oc.column('tree_size').doNothing())
    .execute()
}

/** Replaces a stored checkpoint's note (a key rotation adds the new key's signature). */
export async function updateCheckpointNote(
  ex: Executor,
  treeSize: number,
  note: string,
): Promise<void> {
  await ex
    .updateTable('audit_checkpoints')
    .set({ note })
    .where('tree_size', '=', treeSize)
    .execute()
}

/**
 * The signing-key rotations recorded in the log, oldest first: the leaf and the event's metadata
 * (JSON text).
 */
export async function listKeyRotations(
  ex: Executor,
): Promise<Array<{ leafIndex: number; metadata: string }>> {
  const rows = await ex
    .selectFrom('audit_events')
    .select(['leaf_index', 'metadata'])
    .where('action', '=', KEY_ROTATION_ACTION)
    .where('leaf_index', 'is not', null)
    .orderBy('leaf_index')
    .execute()
  return rows.map((r) => ({ leafIndex: Number(r.leaf_index), metadata: r.metadata }))
}

/** The stored checkpoints of exactly these sizes. */
export async function findCheckpointsOfSizes(
  ex: Executor,
  sizes: number[],
): Promise<CheckpointRow[]> {
  if (sizes.length === 0) return []
  const rows = await ex
    .selectFrom('audit_checkpoints')
    .select(['tree_size', 'note', 'created_at'])
    .where('tree_size', 'in', sizes)
    .orderBy('tree_size')
    .execute()
  return rows.map(toCheckpoint)
}

export interface MonitorState {
  checkedAt: Timestamp | null
  ok: boolean | null
  problem: string | null
  checkedSize: number | null
  anchoredAt: Timestamp | null
  anchorWebhookUrl: string | null
}

export async function readMonitor(ex: Executor): Promise<MonitorState> {
  const row = await ex
    .selectFrom('audit_monitor')
    .select([
      'checked_at',
      'check_ok',
      'check_problem',
      'checked_size',
      'anchored_at',
      'anchor_webhook_url',
    ])
    .where('id', '=', MONITOR_ID)
    .executeTakeFirstOrThrow()
  return {
    checkedAt: row.checked_at,
    ok: row.check_ok === null ? null : Boolean(row.check_ok),
    problem: row.check_problem,
    checkedSize: row.checked_size === null ? null : Number(row.checked_size),
    anchoredAt: row.anchored_at,
    anchorWebhookUrl: row.anchor_webhook_url,
  }
}

/**
 * Records a check's result for every instance's console. Returns true when it is news — a failure
 * other than the one recorded last — so that exactly one instance mails about it.
 */
export async function recordCheck(
  ex: Executor,
  result: { at: Timestamp; ok: boolean; problem: string | null; size: number },
): Promise<boolean> {
  const set = {
    checked_at: result.at,
    check_ok: result.ok,
    check_problem: result.problem,
    checked_size: result.size,
  }
  if (result.ok) {
    await ex.updateTable('audit_monitor').set(set).where('id', '=', MONITOR_ID).execute()
    return false
  }
  const news = await ex
    .updateTable('audit_monitor')
    .set(set)
    .where('id', '=', MONITOR_ID)
    .where((eb) =>
      eb.or([
        eb('check_ok', 'is', null),
        eb('check_ok', '=', true),
        eb('check_problem', 'is', null),
        eb('check_problem', '!=', result.problem!),
      ]),
    )
    .executeTakeFirst()
  if (Number(news.numUpdatedRows) === 1) return true
  await ex.updateTable('audit_monitor').set(set).where('id', '=', MONITOR_ID).execute()
  return false
}

export async function setAnchorWebhook(ex: Executor, url: string | null): Promise<void> {
  await ex
    .updateTable('audit_monitor')
    .set({ anchor_webhook_url: url })
    .where('id', '=', MONITOR_ID)
    .execute()
}

export async function listActiveAdminEmails(ex: Executor): Promise<string[]> {
  const rows = await ex
    .selectFrom('users')
    .select('email')
    .where('is_admin', '=', true)
    .where('disabled', '=', false)
    .orderBy('email')
    .execute()
  return rows.map((r) => r.email)
}

/** Where the daily checkpoint goes; each is claimed and kept on its own (migration 0029). */
export type AnchorChannel = 'mail' | 'webhook'
const ANCHOR_COLUMN = { mail: 'anchored_at', webhook: 'anchor_posted_at' } as const

/**
 * Claims today's anchoring on one channel: for exactly one instance per day (a compare-and-set on
 * the last anchoring), so the administrators get one mail however many instances run. Returns the
 * value it replaced — what `releaseAnchoring` puts back when nothing was delivered — or undefined
 * when the day is already claimed.
 */
export async function claimAnchoring(
  ex: Executor,
  channel: AnchorChannel,
  now: Timestamp,
  notBefore: Timestamp,
): Promise<{ previous: Timestamp | null } | undefined> {
  const column = ANCHOR_COLUMN[channel]
  const row = await ex
    .selectFrom('audit_monitor')
    .select(column)
    .where('id', '=', MONITOR_ID)
    .executeTakeFirstOrThrow()
  const previous = row[column]
  if (previous !== null && new Date(previous).getTime() >= new Date(notBefore).getTime())
    return undefined
  const result = await ex
    .updateTable('audit_monitor')
    .set({ [column]: now })
    .where('id', '=', MONITOR_ID)
    .where((eb) => (previous === null ? eb(column, 'is', null) : eb(column, '=', previous)))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1 ? { previous } : undefined
}

/**
 * Gives a claim back when nothing was delivered, so the next hourly try sends the day's checkpoint.
 */
export async function releaseAnchoring(
  ex: Executor,
  channel: AnchorChannel,
  claimed: Timestamp,
  previous: Timestamp | null,
): Promise<void> {
  const column = ANCHOR_COLUMN[channel]
  await ex
    .updateTable('audit_monitor')
    .set({ [column]: previous })
    .where('id', '=', MONITOR_ID)
    .where(column, '=', claimed)
    .execute()
}

/**
 * Which stored nodes a span of leaves [from, to) owns: its leaf hashes, and each node above the
 * leaves whose last leaf, (idx + 1) × 2^level − 1, lies in the span.
 */
function nodesEndingIn(from: number, to: number) {
  const ranges = [sql`("level" = 0 and "idx" >= ${from} and "idx" < ${to})`]
  for (let level = 1; 2 ** level <= to; level++) {
    const width = 2 ** level
    const first = Math.ceil((from + 1) / width) - 1
    const last = Math.floor(to / width) - 1
    if (first <= last) ranges.push(sql`("level" = ${level} and "idx" between ${first} and ${last})`)
  }
  return sql.join(ranges, sql` or `)
}

/**
 * A SHA-256 (hex) of every stored row of leaves [from, to): each event's columns (quoted, so a
 * NULL and a text differ) and the nodes the span owns. PostgreSQL computes it itself; SQLite's
 * rows are hashed here. The same rows give the same digest on one database, which is all it is for
 * (integrity-prefix.ts): it is not the leaf hash.
 */
export async function digestLeafSpan(ex: Executor, from: number, to: number): Promise<string> {
  const nodes = nodesEndingIn(from, to)
  if (isPostgres(ex)) {
    const { rows } = await sql<{ digest: string }>`select encode(sha256(convert_to(
        coalesce((select string_agg(concat_ws(',', "leaf_index", quote_nullable("id"),
          quote_nullable("at"), quote_nullable("actor_id"), quote_nullable("actor_email"),
          quote_nullable("action"), quote_nullable("target_type"), quote_nullable("target_id"),
          quote_nullable("ip"), quote_nullable("user_agent"), quote_nullable("subject_user_id"),
          quote_nullable("metadata")), E'\n' order by "leaf_index")
          from "audit_events" where "leaf_index" >= ${from} and "leaf_index" < ${to}), '')
        || E'\n--\n' ||
        coalesce((select string_agg(concat_ws(':', "level", "idx", quote_nullable("hash")), E'\n'
          order by "level", "idx") from "audit_tree_nodes" where ${nodes}), ''),
        'UTF8')), 'hex') as "digest"`.execute(ex)
    return rows[0]!.digest
  }
  const events = await sql<{ line: string }>`select "leaf_index" || ',' || quote("id") || ','
      || quote("at") || ',' || quote("actor_id") || ',' || quote("actor_email") || ','
      || quote("action") || ',' || quote("target_type") || ',' || quote("target_id") || ','
      || quote("ip") || ',' || quote("user_agent") || ',' || quote("subject_user_id") || ','
      || quote("metadata") as "line"
    from "audit_events" where "leaf_index" >= ${from} and "leaf_index" < ${to}
    order by "leaf_index"`.execute(ex)
  const stored = await sql<{ line: string }>`select "level" || ':' || "idx" || ':' || quote("hash")
      as "line" from "audit_tree_nodes" where ${nodes} order by "level", "idx"`.execute(ex)
  return createHash('sha256')
    .update(events.rows.map((r) => r.line).join('\n'))
    .update('\n--\n')
    .update(stored.rows.map((r) => r.line).join('\n'))
    .digest('hex')
}
