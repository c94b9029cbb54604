/**
 * On PostgreSQL, what an audited transaction runs after its audit append. The append locks the
 * audit tree's head until the commit (docs/decisions/0047-audit-appends-flush-after-commit.md):
 * every audited write of every instance waits for that lock, so a statement between the append and
 * the COMMIT — a read of what was just written, another write — lengthens the wait of all of them.
 * Reads belong before the append, or after the commit.
 *
 * Every statement a pg client sends is seen here (pg's Client#query, which the pool and Kysely's
 * driver use), per connection, from BEGIN to COMMIT. A committed transaction that ran anything but
 * audit appends after its first append is a violation: the statements after it and the code that
 * sent the first of them. useTestApp fails the test that caused one (test/helpers/app.ts).
 */
import pg from 'pg'

/** The violations seen since the last `takeAppendOrderViolations`. */
const violations: string[] = []

/**
 * The statements that lock the head for an append: the append in one statement (tree.repo.ts
 * appendEventsPostgres), or the lock before an append in chunks (tree.repo.ts LOCK_HEAD).
 */
const LOCK_HEAD =
  /^(with "appended_head" as \(update "audit_tree_head"|select "size", "frontier", set_config\('synchronous_commit', 'off', true\))/
/** The append's writes: the events with the head (one statement, or in chunks). */
const APPEND_WRITE =
  /^(with "written_events" as \(insert into "audit_events"|insert into "audit_events"|update "audit_tree_head" set "size")/

/**
 * The key rotation's checkpoint, read and written after its event under the same lock: it must
 * commit with the rotation at exactly that size (key-rotation.ts). An operator's rare command.
 */
const ROTATION_CHECKPOINT =
  /^(select "size", "frontier" from "audit_tree_head"|insert into "audit_checkpoints")/

/**
 * A test's own probe of the transaction's state after the append (e.g. the commit mode the append
 * set), marked so by a leading comment; never sent by the service.
 */
export const AFTER_APPEND_PROBE = '/* after-append probe */'

interface Transaction {
  appended: boolean
  after: Array<{ sql: string; from: string }>
}

const transactions = new WeakMap<object, Transaction>()
let installed = false

/** The first frames of the service's own code that sent a statement. */
function caller(): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 60
  const frames = (new Error().stack ?? '').split('\n').slice(1)
  Error.stackTraceLimit = limit
  const own = frames.filter((f) => f.includes('/src/') && !f.includes('/src/db/'))
  return own
    .slice(0, 3)
    .map((f) => f.trim().replace(/^at /, ''))
    .join(' < ')
}

function observe(client: object, sql: string): void {
  const text = sql.trimStart()
  if (/^(begin|start transaction)\b/i.test(text)) {
    transactions.set(client, { appended: false, after: [] })
    return
  }
  const tx = transactions.get(client)
  if (tx === undefined) return
  if (/^(commit|rollback)$/i.test(text)) {
    transactions.delete(client)
    if (text.toLowerCase() === 'commit' && tx.after.length > 0) {
      violations.push(
        `${tx.after.length} statement(s) after the audit append, first sent by ${tx.after[0]!.from}:\n` +
          tx.after.map((s) => `    ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}`).join('\n'),
      )
    }
    return
  }
  if (LOCK_HEAD.test(text) || APPEND_WRITE.test(text)) {
    tx.appended = true
    return
  }
  if (tx.appended && !ROTATION_CHECKPOINT.test(text) && !text.startsWith(AFTER_APPEND_PROBE))
    tx.after.push({ sql: text, from: caller() })
}

/** Starts watching every pg client of this process (once; later calls change nothing). */
export function watchAuditAppendOrder(): void {
  if (installed) return
  installed = true
  const prototype = pg.Client.prototype as unknown as {
    query: (this: object, ...args: unknown[]) => unknown
  }
  const query = prototype.query
  prototype.query = function (this: object, ...args: unknown[]) {
    const first = args[0]
    const sql =
      typeof first === 'string'
        ? first
        : typeof first === 'object' && first !== null && 'text' in first
          ? String(first.text)
          : null
    if (sql !== null) observe(this, sql)
    return query.apply(this, args)
  }
}

/** The violations seen so far, emptied. */
export function takeAppendOrderViolations(): string[] {
  return violations.splice(0)
}
