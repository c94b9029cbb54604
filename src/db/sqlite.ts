/**
 * SQLite through better-sqlite3, adapted so repos can be written once for both engines:
 * - the single connection is handed to waiting queries in order (a FIFO, not a wake-everyone loop);
 * - write transactions start with BEGIN IMMEDIATE, so a read-then-write transaction can never fail
 *   half-way with SQLITE_BUSY when another process holds the write lock;
 * - booleans are bound as 1/0 (better-sqlite3 refuses JavaScript booleans);
 * - row locks (FOR UPDATE) are dropped: SQLite serialises writers, which gives the same guarantee;
 * - prepared statements are cached, since preparing costs more than running a point select.
 */
import fs from 'node:fs'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import {
  CompiledQuery,
  OperationNodeTransformer,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type SelectQueryNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely'

const STATEMENT_CACHE_SIZE = 500

/** Narrows a path's mode; a path someone else owns keeps its mode (chmod would fail) and the OS decides. */
function restrict(target: string, mode: number): void {
  try {
    fs.chmodSync(target, mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'EPERM') throw error
  }
}

/**
 * The database holds password hashes and encrypted secrets: its directory is 0700 and the
 * database, WAL and shared-memory files 0600 (issue #11 item 15), also when the directory or files
 * already existed with wider modes (an operator's mkdir, an older version, a restored backup).
 */
function prepareFiles(file: string): void {
  const directory = path.dirname(file)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  restrict(directory, 0o700)
  fs.closeSync(fs.openSync(file, 'a', 0o600))
  restrict(file, 0o600)
}

export function openSqlite(file: string): BetterSqlite3.Database {
  if (file !== ':memory:') prepareFiles(file)
  const database = new BetterSqlite3(file)
  database.pragma('journal_mode = WAL')
  // SQLite gives -wal and -shm the database file's mode; an older pair may still be wider.
  if (file !== ':memory:') for (const suffix of ['-wal', '-shm']) restrict(file + suffix, 0o600)
  // NORMAL in WAL mode never corrupts and loses no acknowledged write when the process dies;
  // only an OS crash may roll back the last transactions.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  database.pragma('busy_timeout = 5000')
  return database
}

/**
 * Hands the one connection to waiters in arrival order. (Kysely's own SQLite mutex wakes every
 * waiter on each release; under ten concurrent requests that cost more than the queries.)
 */
class FifoMutex {
  #locked = false
  readonly #waiters: Array<() => void> = []

  get locked(): boolean {
    return this.#locked
  }

  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true
      return
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve))
  }

  unlock(): void {
    const next = this.#waiters.shift()
    if (next === undefined) this.#locked = false
    else next()
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #statements = new Map<string, BetterSqlite3.Statement>()
  constructor(readonly database: BetterSqlite3.Database) {}

  // Each distinct SQL text is prepared once: preparing costs more than running a point select.
  #statement(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.database.prepare(sql)
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value as string)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  readNow<R>(query: CompiledQuery): R[] {
    return this.#statement(query.sql).all(query.parameters) as R[]
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#statement(query.sql)
    const parameters = query.parameters as unknown[]
    if (statement.reader) return { rows: statement.all(parameters) as R[] }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with SQLite')
  }
}

class SqliteDriver implements Driver {
  readonly #mutex = new FifoMutex()
  readonly #connection: SqliteConnection
  constructor(database: BetterSqlite3.Database) {
    this.#connection = new SqliteConnection(database)
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock()
    return this.#connection
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock()
  }
  // IMMEDIATE takes the write lock at BEGIN, so a read-then-write transaction never fails half-way.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }
  async destroy(): Promise<void> {
    this.#connection.database.close()
  }
  /**
   * Runs a read at once when no transaction holds the connection — better-sqlite3 is synchronous,
   * so nothing can interleave — and returns undefined when one does (the caller then queues).
   */
  readNow<R>(query: CompiledQuery): R[] | undefined {
    return this.#mutex.locked ? undefined : this.#connection.readNow<R>(query)
  }
}

/** A synchronous read path beside Kysely's queue, for precompiled hot-path queries. */
export type ImmediateReader = <R>(query: CompiledQuery) => R[] | undefined

class SwitchboardSqliteDialect extends SqliteDialect {
  readonly driver: SqliteDriver
  constructor(database: BetterSqlite3.Database) {
    super({ database })
    this.driver = new SqliteDriver(database)
  }
  override createDriver(): Driver {
    return this.driver
  }
}

const LOCK_MODIFIERS = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare', 'NoWait', 'SkipLocked'])

class SqliteCompatTransformer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = super.transformValue(node)
    return typeof value.value === 'boolean' ? { ...value, value: value.value ? 1 : 0 } : value
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    const list = super.transformPrimitiveValueList(node)
    return { ...list, values: list.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)) }
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    const query = super.transformSelectQuery(node)
    if (query.endModifiers === undefined) return query
    const endModifiers = query.endModifiers.filter((m) => m.modifier === undefined || !LOCK_MODIFIERS.has(m.modifier))
    return { ...query, endModifiers }
  }
}

export class SqliteCompatPlugin implements KyselyPlugin {
  readonly #transformer = new SqliteCompatTransformer()
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node)
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

export function createSqliteDialect(file: string): { dialect: SqliteDialect; readNow: ImmediateReader } {
  const dialect = new SwitchboardSqliteDialect(openSqlite(file))
  return { dialect, readNow: (query) => dialect.driver.readNow(query) }
}
