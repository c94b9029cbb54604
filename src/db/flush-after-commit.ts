/**
 * Commits that release their locks before the WAL flush, and answer only after it
 * (docs/decisions/0047-audit-appends-flush-after-commit.md).
 *
 * A PostgreSQL COMMIT holds every lock of its transaction until its WAL record is on disk (one
 * fsync, about 2.4 ms on the bench machine). For a transaction that locks a row every writer of a
 * kind must lock — the audit tree head — that fsync is inside the serialised part, so such writes
 * can never outpace one fsync each. A statement marked by `flushAfterCommit` turns the
 * transaction's synchronous commit off (`set_config('synchronous_commit', 'off', true)` in it,
 * local to the transaction): its COMMIT then releases the locks once the record is written to the
 * WAL buffers. Before the commit is reported to the caller, the same connection runs a transaction
 * of its own that commits synchronously (the session's setting; FLUSH below): its commit record
 * follows the first one in the WAL, so when it returns the first is on disk too. Both go in one
 * simple-protocol message (COMMIT_THEN_FLUSH), one round trip: PostgreSQL runs the statements after
 * a COMMIT in an implicit transaction of their own, and skips them when the COMMIT fails.
 * PostgreSQL flushes the WAL of concurrent committers together, so one fsync serves every write
 * waiting at that moment.
 *
 * What a caller is told has committed is as durable as before. Other transactions may see the
 * changes for the length of that flush before they are on disk; a crash inside that window loses
 * them together with every later transaction (the WAL is replayed in order), so nothing that
 * builds on them survives without them.
 *
 * Switch back: POSTGRES_AUDIT_COMMIT=plain. A marked statement then runs as the plain twin it was
 * marked with (the same statement without ASYNC_COMMIT), so its transaction commits synchronously,
 * holding its locks through the flush, and no flush transaction follows.
 *
 * Built on Kysely's public Driver interface: every call is delegated to PostgresDriver, with the
 * connection it gave out.
 */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'

/** The select-list item a marked statement carries: synchronous commit off for its transaction. */
export const ASYNC_COMMIT = "set_config('synchronous_commit', 'off', true)"

/**
 * A transaction of its own whose commit waits for the WAL flush: PostgreSQL commits synchronously
 * only a transaction that has a transaction id and wrote WAL (one that only took an id commits
 * asynchronously), and a transactional logical-decoding message is both, with nothing stored.
 * Any role may emit one, at any wal_level; decoding plugins that do not ask for messages skip it.
 */
const FLUSH = "select pg_logical_emit_message(true, 'switchboard.flush', '')"

/**
 * A marked transaction's end: its COMMIT, then FLUSH, in one message. pg sends a query without
 * values by the simple protocol, the one that carries several statements (with values PostgreSQL
 * would refuse it: the flush test fails by name).
 */
const COMMIT_THEN_FLUSH = CompiledQuery.raw(`commit; ${FLUSH}`)

/** Each marked statement's plain twin. */
const marked = new WeakMap<CompiledQuery, CompiledQuery>()

/**
 * Marks a fixed statement that contains ASYNC_COMMIT: a transaction that runs it commits without
 * holding its locks through the flush, and its commit returns after the flush. `plain`, the same
 * statement without ASYNC_COMMIT, is what runs in its place under POSTGRES_AUDIT_COMMIT=plain.
 */
export function flushAfterCommit<Q extends CompiledQuery>(query: Q, plain: CompiledQuery): Q {
  if (!query.sql.includes(ASYNC_COMMIT)) throw new Error('the statement does not defer its flush')
  if (plain.sql.includes(ASYNC_COMMIT)) throw new Error('the plain statement defers its flush')
  marked.set(query, plain)
  return query
}

/** How an audited transaction commits (POSTGRES_AUDIT_COMMIT, config.ts). */
export type AuditCommit = 'grouped' | 'plain'

/** A connection that notices a marked statement: tells its driver, or runs the plain twin. */
class WatchedConnection implements DatabaseConnection {
  deferred = false
  constructor(
    readonly inner: DatabaseConnection,
    private readonly commit: AuditCommit,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const plain = marked.get(query)
    if (plain !== undefined && this.commit === 'plain') return this.inner.executeQuery<R>(plain)
    if (plain !== undefined) this.deferred = true
    return this.inner.executeQuery<R>(query)
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

const innerOf = (connection: DatabaseConnection): DatabaseConnection =>
  (connection as WatchedConnection).inner

/**
 * PostgresDriver, with the flush of a marked transaction run after its COMMIT (`grouped`), or with
 * marked statements run as their plain twins (`plain`).
 */
export class FlushAfterCommitDriver implements Driver {
  constructor(
    private readonly driver: Driver,
    private readonly commit: AuditCommit,
  ) {}

  init(): Promise<void> {
    return this.driver.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.driver.acquireConnection(), this.commit)
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    ;(connection as WatchedConnection).deferred = false
    return this.driver.beginTransaction(innerOf(connection), settings)
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const watched = connection as WatchedConnection
    if (!watched.deferred) return this.driver.commitTransaction(watched.inner)
    watched.deferred = false
    await watched.inner.executeQuery(COMMIT_THEN_FLUSH)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    ;(connection as WatchedConnection).deferred = false
    return this.driver.rollbackTransaction(innerOf(connection))
  }

  savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ): Promise<void> {
    return this.driver.savepoint!(innerOf(connection), name, compile)
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2],
  ): Promise<void> {
    return this.driver.rollbackToSavepoint!(innerOf(connection), name, compile)
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2],
  ): Promise<void> {
    return this.driver.releaseSavepoint!(innerOf(connection), name, compile)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(innerOf(connection))
  }

  destroy(): Promise<void> {
    return this.driver.destroy()
  }
}
