/**
 * One data layer over two engines, chosen by DATABASE_URL. Everything above this folder sees only
 * Kysely<Database>; the engine differences are absorbed here and in the migrations.
 */
import { Kysely, sql } from 'kysely'
import type { DatabaseConfig } from '../config.js'
import type { Database, Db } from './schema.js'
import { SqliteCompatPlugin, createSqliteDialect, createSqliteReaderDialect } from './sqlite.js'
import { createPipelinedReader } from './drivers/pg-pipelined-reader.js'
import {
  createPoolReader,
  createPostgresDialect,
  createPostgresPool,
  splitConnections,
} from './postgres.js'
import {
  registerImmediateReader,
  registerPoolReader,
  registerPreparedReader,
} from './precompiled.js'

export type Engine = DatabaseConfig['kind']

export interface DatabaseHandle {
  db: Db
  engine: Engine
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /**
   * Runs a long read (the audit log's whole check) with a database of its own: on SQLite a second
   * connection to the file (refusing writes, with a small page cache), closed when `read` ends, so
   * the read neither holds the service's one connection nor fills its page cache with pages no
   * request needs; on PostgreSQL, and for an in-memory SQLite database, the service's own.
   */
  withOwnReader<T>(read: (db: Db) => Promise<T>): Promise<T>
  close(): Promise<void>
}

function createKysely(
  config: DatabaseConfig,
  log: DatabaseLog,
): { db: Db; closeReaders: () => Promise<void> } {
  if (config.kind === 'postgres') {
    const report = (what: string) => (error: Error) =>
      log.warn({ error: { code: (error as { code?: string }).code, message: error.message } }, what)
    // POSTGRES_HOT_READS=pool: every connection is the pool's, and pg reads every row itself.
    const connections =
      config.hotReads === 'pool'
        ? { pool: config.poolSize, pipelined: 0 }
        : splitConnections(config.poolSize)
    const pool = createPostgresPool(
      config.url,
      connections.pool,
      report('an idle database connection failed; it will be replaced'),
    )
    const db = new Kysely<Database>({ dialect: createPostgresDialect(pool, config.auditCommit) })
    const poolReader = createPoolReader(pool)
    registerPoolReader(db, poolReader)
    if (connections.pipelined === 0) {
      registerPreparedReader(db, poolReader)
      return { db, closeReaders: async () => undefined }
    }
    const reader = createPipelinedReader(
      config.url,
      connections.pipelined,
      report('a pipelined database connection failed; the next read opens a new one'),
    )
    registerPreparedReader(db, reader.read)
    return { db, closeReaders: () => reader.close() }
  }
  const { dialect, readNow } = createSqliteDialect(config.url, { readCache: config.readCache })
  const db = new Kysely<Database>({ dialect, plugins: [new SqliteCompatPlugin()] })
  registerImmediateReader(db, readNow)
  return { db, closeReaders: async () => undefined }
}

/** Where the data layer reports trouble it recovers from by itself. */
export interface DatabaseLog {
  warn(details: object, message: string): void
}

export function createDatabase(config: DatabaseConfig, log: DatabaseLog): DatabaseHandle {
  const { db, closeReaders } = createKysely(config, log)
  return {
    db,
    engine: config.kind,
    async ping() {
      await sql`select 1`.execute(db)
    },
    async withOwnReader(read) {
      if (config.kind === 'postgres' || config.url === ':memory:') return read(db)
      const reader = new Kysely<Database>({
        dialect: createSqliteReaderDialect(config.url),
        plugins: [new SqliteCompatPlugin()],
      })
      try {
        return await read(reader)
      } finally {
        await reader.destroy()
      }
    },
    async close() {
      await closeReaders()
      await db.destroy()
    },
  }
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null
    ? (error as { code?: unknown }).code
    : undefined
}

/** True when the error is a violation of a unique index or primary key, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error)
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  )
}

/**
 * True when the error is a foreign-key violation (the referenced row is gone), on either engine.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error)
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

const UNAVAILABLE_CODES = new Set([
  // The network: the server is down, restarting, or unreachable.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  // PostgreSQL: shutting down, starting up, out of connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // SQLite: another process held the write lock past busy_timeout.
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
])

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'not queryable',
  // Closed during shutdown (Kysely, pg, node:sqlite).
  'driver has already been destroyed',
  'Cannot use a pool after calling end',
  'database is not open',
  'statement has been finalized',
]

/**
 * True when the error says the database cannot be reached right now, rather than that the query
 * was wrong: such requests answer 503 (retry later) instead of 500 (a bug).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08')))
    return true
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))
}
