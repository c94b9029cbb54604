/**
 * SQLite through better-sqlite3, adapted so repos can be written once for both engines:
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
  SqliteDriver,
  type DatabaseConnection,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type SelectQueryNode,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type UnknownRow,
  type ValueNode,
} from 'kysely'

const STATEMENT_CACHE_SIZE = 500

export function openSqlite(file: string): BetterSqlite3.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const database = new BetterSqlite3(file)
  database.pragma('journal_mode = WAL')
  // NORMAL in WAL mode never corrupts and loses no acknowledged write when the process dies;
  // only an OS crash may roll back the last transactions.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  database.pragma('busy_timeout = 5000')
  return database
}

/** Wraps the connection so each distinct SQL text is prepared once. */
function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>()
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = cache.get(sql)
      if (statement === undefined) {
        statement = database.prepare(sql)
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
        cache.set(sql, statement)
      }
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>
    },
  }
}

class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

class SwitchboardSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig
  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }
  override createDriver() {
    return new ImmediateTransactionDriver(this.#config)
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

export function createSqliteDialect(file: string): SqliteDialect {
  const database = openSqlite(file)
  return new SwitchboardSqliteDialect({ database: withStatementCache(database) })
}
