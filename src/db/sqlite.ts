/**
 * SQLite through Node's built-in node:sqlite (no native addon to install or build; chosen by
 * measurement, docs/decisions/0001-node-sqlite.md), adapted so repos can be written once for
 * both engines:
 * - the single connection is handed to waiting queries in order (a FIFO, not a wake-everyone loop);
 *   a long read (the audit log's check) has a second, read-only one of its own (openSqliteReader);
 * - write transactions start with BEGIN IMMEDIATE, so a read-then-write transaction can never fail
 *   half-way with SQLITE_BUSY when another process holds the write lock;
 * - booleans are bound as 1/0 (node:sqlite on Node 22 refuses JavaScript booleans);
 * - row locks (FOR UPDATE) are dropped: SQLite serialises writers, which gives the same guarantee;
 * - prepared statements are cached, since preparing costs more than running a point select;
 * - hot reads run at once beside Kysely's queue, answered from the read cache while the database
 *   is unchanged (sqlite-read-cache.ts; SQLITE_READ_CACHE=off reads SQLite every time);
 * - errors carry the SQLite result code as `code: 'SQLITE_…'` (node:sqlite gives only the number),
 *   which is what db/client.ts maps to 409s and 503s.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type * as NodeSqlite from 'node:sqlite'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import {
  CompiledQuery,
  OperationNodeTransformer,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
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
import { CommitWatch } from './drivers/sqlite-commit-watch.js'
import { ReadCache, mapAll, type Mapper, type Parameters } from './sqlite-read-cache.js'
import { WalCheckpointer } from './sqlite-checkpoint.js'

const STATEMENT_CACHE_SIZE = 500

/**
 * Narrows a path's mode; a path someone else owns keeps its mode (chmod would fail) and the OS
 * decides.
 */
function restrict(target: string, mode: number): void {
  try {
    fs.chmodSync(target, mode)
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'ENOENT' &&
      (error as NodeJS.ErrnoException).code !== 'EPERM'
    )
      throw error
  }
}

/**
 * The database holds password hashes and encrypted secrets: its directory is 0700 and the
 * database, WAL and shared-memory files 0600, also when the directory or files
 * already existed with wider modes (an operator's mkdir, an older version, a restored backup).
 */
function prepareFiles(file: string): void {
  const directory = path.dirname(file)
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  restrict(directory, 0o700)
  fs.closeSync(fs.openSync(file, 'a', 0o600))
  restrict(file, 0o600)
}

const require = createRequire(import.meta.url)
const EXPERIMENTAL_SQLITE_WARNING = 'SQLite is an experimental feature'

/**
 * Loads node:sqlite when the first SQLite database opens (a PostgreSQL deployment never does).
 * Node 22 marks the module experimental and prints an ExperimentalWarning as it loads (Node 24
 * does not): that one warning is not passed on — an operator can do nothing about it, and the part
 * of the API used here (DatabaseSync, exec, prepare, all/run, columns, close) is the same on every
 * supported Node. Every other warning still goes through.
 */
export function loadNodeSqlite(): typeof NodeSqlite {
  // Put back as it was, and called with process as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const emitWarning = process.emitWarning
  const passOn = (...args: unknown[]) => Reflect.apply(emitWarning, process, args) as void
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message
    const type =
      typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type
    if (type === 'ExperimentalWarning' && message.startsWith(EXPERIMENTAL_SQLITE_WARNING)) return
    passOn(warning, ...rest)
  }
  try {
    return require('node:sqlite') as typeof NodeSqlite
  } finally {
    process.emitWarning = emitWarning
  }
}

/**
 * Pages a reader connection (openSqliteReader) keeps: a long read passes over each page once, so a
 * cache the size of the service's own (SQLite's default, 2 MiB) would only hold memory that the
 * C library keeps after the connection closes.
 */
const READER_CACHE_KIB = 256

export function openSqlite(file: string): DatabaseSync {
  if (file !== ':memory:') prepareFiles(file)
  const { DatabaseSync: Database } = loadNodeSqlite()
  const database = new Database(file)
  database.exec('pragma journal_mode = WAL')
  // SQLite gives -wal and -shm the database file's mode; an older pair may still be wider.
  if (file !== ':memory:') for (const suffix of ['-wal', '-shm']) restrict(file + suffix, 0o600)
  configureConnection(database)
  return database
}

/**
 * A second connection to the service's database file for one long read (db/client.ts
 * `withOwnReader`), which the service's connection has already put in WAL mode: it refuses writes
 * and keeps a small cache.
 */
function openSqliteReader(file: string): DatabaseSync {
  const { DatabaseSync: Database } = loadNodeSqlite()
  const database = new Database(file)
  configureConnection(database)
  database.exec('pragma query_only = 1')
  database.exec(`pragma cache_size = -${READER_CACHE_KIB}`)
  return database
}

function configureConnection(database: DatabaseSync): void {
  // NORMAL in WAL mode never corrupts and loses no acknowledged write when the process dies;
  // only an OS crash may roll back the last transactions.
  database.exec('pragma synchronous = NORMAL')
  database.exec('pragma foreign_keys = ON')
  database.exec('pragma busy_timeout = 5000')
  // SQLite's lower() folds ASCII only; SCIM's case-insensitive filters (modules/scim/users.repo.ts)
  // fold as JavaScript does, which is what PostgreSQL's lower() under an ICU collation does too.
  database.function('unicode_lower', { deterministic: true }, (text) =>
    typeof text === 'string' ? text.toLowerCase() : text,
  )
}

/**
 * The SQLite (extended) result codes the data layer tells apart (https://sqlite.org/rescode.html).
 */
const RESULT_CODES: Record<number, string> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  19: 'SQLITE_CONSTRAINT',
  261: 'SQLITE_BUSY_RECOVERY',
  262: 'SQLITE_LOCKED_SHAREDCACHE',
  275: 'SQLITE_CONSTRAINT_CHECK',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
}

/**
 * node:sqlite reports `code: 'ERR_SQLITE_ERROR'` with the number in `errcode`; the data layer (and
 * its callers' tests) speak SQLite's names, as better-sqlite3 did. A busy database (any BUSY/LOCKED
 * variant) becomes SQLITE_BUSY/SQLITE_LOCKED so it is told apart as "unavailable", not a bug.
 */
export function withSqliteCode(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error
  const { errcode } = error as { errcode?: unknown }
  if (typeof errcode !== 'number') return error
  const name = RESULT_CODES[errcode] ?? RESULT_CODES[errcode & 0xff]
  const code = name?.startsWith('SQLITE_BUSY')
    ? 'SQLITE_BUSY'
    : name?.startsWith('SQLITE_LOCKED')
      ? 'SQLITE_LOCKED'
      : name
  if (code !== undefined) Object.assign(error, { code })
  return error
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

interface Prepared {
  statement: StatementSync
  /** True when the statement returns rows (a SELECT, or a write with RETURNING). */
  reader: boolean
  /** The rows' column names when node:sqlite answers them as arrays (`rowsOf`), else null. */
  columns: readonly string[] | null
}

/**
 * Prepares a statement and keeps its rows' column names for `rowsOf`. A column named `__proto__`
 * keeps node:sqlite's objects, as an ordinary object cannot hold that name as data.
 */
function prepareReading(database: DatabaseSync, sql: string): Prepared {
  const statement = database.prepare(sql)
  const names = statement.columns().map((column) => column.name)
  const reader = names.length > 0
  const asArrays = reader && !names.includes('__proto__')
  return { statement, reader, columns: asArrays ? names : null }
}

/**
 * The rows of a precompiled read (a page of links, its extras, the hot reads): node:sqlite answers
 * them as arrays of values, made here into ordinary objects keyed by column name, in order, the
 * last of a repeated name winning — what node:sqlite's own objects hold. Its objects cost more to
 * make and, being null-prototype dictionaries, several times more to read (a page of 51 links made
 * and read: 150 µs as its objects, 80 µs so; docs/decisions/0066-sqlite-rows-as-arrays.md).
 * Kysely's statements keep node:sqlite's objects (`plainRows`): nothing read through them was
 * measured to gain, and the start-up audit check reads 200,000 rows that way.
 */
function rowsOf(prepared: Prepared, parameters: Parameters): unknown[] {
  const columns = prepared.columns
  if (columns === null) return plainRows(prepared, parameters)
  prepared.statement.setReturnArrays(true)
  const rows: unknown[] = prepared.statement.all(...parameters)
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r] as unknown[]
    const row: Record<string, unknown> = {}
    for (let c = 0; c < columns.length; c++) row[columns[c]!] = values[c]
    rows[r] = row
  }
  return rows
}

function plainRows(prepared: Prepared, parameters: Parameters): unknown[] {
  prepared.statement.setReturnArrays(false)
  return prepared.statement.all(...parameters)
}

class SqliteConnection implements DatabaseConnection {
  readonly #statements = new Map<string, Prepared>()
  /** Null with SQLITE_READ_CACHE=off: every hot read then asks SQLite. */
  readonly #cache: ReadCache | null
  #writes = 0
  constructor(
    readonly database: DatabaseSync,
    commits: CommitWatch | null,
  ) {
    this.#cache = commits === null ? null : new ReadCache(commits)
  }

  // Each distinct SQL text is prepared once: preparing costs more than running a point select.
  #prepared(sql: string): Prepared {
    let prepared = this.#statements.get(sql)
    if (prepared === undefined) {
      prepared = this.#call(() => prepareReading(this.database, sql))
      if (this.#statements.size >= STATEMENT_CACHE_SIZE)
        this.#statements.delete(this.#statements.keys().next().value as string)
      this.#statements.set(sql, prepared)
    }
    return prepared
  }

  #call<T>(work: () => T): T {
    try {
      return work()
    } catch (error) {
      throw withSqliteCode(error)
    }
  }

  /** How many statements other than a SELECT this connection has run so far. */
  get writes(): number {
    return this.#writes
  }

  readNow(
    sql: string,
    parameters: Parameters,
    map: Mapper | undefined,
    keep: boolean,
  ): readonly unknown[] {
    const prepared = this.#prepared(sql)
    // #call's work, written out: one closure fewer on every authenticated request.
    try {
      if (this.#cache === null || !keep) return mapAll(rowsOf(prepared, parameters), map)
      return this.#cache.read(
        sql,
        parameters,
        this.#writes,
        () => rowsOf(prepared, parameters),
        map,
      )
    } catch (error) {
      throw withSqliteCode(error)
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A SELECT cannot change anything; every other statement may (the read cache's first check).
    if (!query.sql.startsWith('select ')) this.#writes++
    const prepared = this.#prepared(query.sql)
    const parameters = query.parameters as Parameters
    if (prepared.reader) return { rows: this.#call(() => plainRows(prepared, parameters)) as R[] }
    const { changes, lastInsertRowid } = this.#call(() => prepared.statement.run(...parameters))
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) }
  }

  close(): void {
    this.database.close()
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with SQLite')
  }
}

class SqliteDriver implements Driver {
  readonly #mutex = new FifoMutex()
  readonly #connection: SqliteConnection
  /** None for an in-memory database, which has no WAL. */
  readonly #checkpointer: WalCheckpointer | undefined
  /** None with the read cache off: then nothing reads the WAL-index. */
  readonly #commits: CommitWatch | null
  #writesChecked = 0
  readonly #begin: CompiledQuery
  constructor(database: DatabaseSync, options: SqliteOptions) {
    this.#begin = CompiledQuery.raw(options.reader === true ? 'begin' : 'begin immediate')
    // One look at the wal-index serves both: the read cache's commit check and the checkpointer's
    // backlog. Without it the checkpoints are SQLite's own, inside the commit that is due one.
    const commits = options.readCache ? new CommitWatch(database) : null
    this.#commits = commits
    this.#connection = new SqliteConnection(database, commits)
    this.#checkpointer = commits?.inFile
      ? new WalCheckpointer(database, this.#mutex, () => commits.walBacklog())
      : undefined
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock()
    return this.#connection
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock()
    // Only after a unit of work that wrote (a transaction releases once, after its commit).
    const writes = this.#connection.writes
    if (writes === this.#writesChecked) return
    this.#writesChecked = writes
    this.#checkpointer?.afterWrite()
  }
  // IMMEDIATE takes the write lock at BEGIN, so a read-then-write transaction never fails half-way;
  // a reader's begins DEFERRED (#begin), as it never writes.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(this.#begin)
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }
  async destroy(): Promise<void> {
    this.#checkpointer?.close()
    this.#commits?.close()
    this.#connection.close()
  }
  /**
   * Runs a read at once when no transaction holds the connection — node:sqlite is synchronous,
   * so nothing can interleave — and returns undefined when one does (the caller then queues).
   */
  readNow(
    sql: string,
    parameters: Parameters,
    map: Mapper | undefined,
    keep: boolean,
  ): readonly unknown[] | undefined {
    return this.#mutex.locked ? undefined : this.#connection.readNow(sql, parameters, map, keep)
  }
}

/**
 * A synchronous read path beside Kysely's queue, for precompiled queries: their rows, each passed
 * through `map` when given, or undefined when the caller must queue instead. `keep` (default true)
 * answers from the read cache and keeps the rows there; false reads the database every time (a
 * page of links: db/precompiled.ts compiledOnce).
 */
export type ImmediateReader = (
  sql: string,
  parameters: Parameters,
  map?: Mapper,
  keep?: boolean,
) => readonly unknown[] | undefined

/** Kysely's SQLite dialect (compiler, adapter, introspector) over the driver above. */
class SwitchboardSqliteDialect implements Dialect {
  readonly driver: SqliteDriver
  constructor(database: DatabaseSync, options: SqliteOptions) {
    this.driver = new SqliteDriver(database, options)
  }
  createDriver(): Driver {
    return this.driver
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler()
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter()
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db)
  }
}

const LOCK_MODIFIERS = new Set([
  'ForUpdate',
  'ForNoKeyUpdate',
  'ForShare',
  'ForKeyShare',
  'NoWait',
  'SkipLocked',
])

class SqliteCompatTransformer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = super.transformValue(node)
    return typeof value.value === 'boolean' ? { ...value, value: value.value ? 1 : 0 } : value
  }

  protected override transformPrimitiveValueList(
    node: PrimitiveValueListNode,
  ): PrimitiveValueListNode {
    const list = super.transformPrimitiveValueList(node)
    return { ...list, values: list.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)) }
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    const query = super.transformSelectQuery(node)
    if (query.endModifiers === undefined) return query
    const endModifiers = query.endModifiers.filter(
      (m) => m.modifier === undefined || !LOCK_MODIFIERS.has(m.modifier),
    )
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

/**
 * `readCache`: SQLITE_READ_CACHE (config.ts). `reader`: a connection that only reads
 * (openSqliteReader), whose transactions begin DEFERRED and so take no write lock.
 */
export interface SqliteOptions {
  readCache: boolean
  reader?: boolean
}

export function createSqliteDialect(
  file: string,
  options: SqliteOptions,
): { dialect: Dialect; readNow: ImmediateReader } {
  const dialect = new SwitchboardSqliteDialect(openSqlite(file), options)
  return {
    dialect,
    readNow: (sql, parameters, map, keep = true) =>
      dialect.driver.readNow(sql, parameters, map, keep),
  }
}

/** The dialect over a reader connection to `file` (openSqliteReader). */
export function createSqliteReaderDialect(file: string): Dialect {
  return new SwitchboardSqliteDialect(openSqliteReader(file), { readCache: false, reader: true })
}
