/**
 * One data layer over two engines, chosen by DATABASE_URL. Everything above this folder sees only
 * Kysely<Database>; the engine differences are absorbed here and in the migrations.
 */
import { Kysely, sql } from 'kysely'
import type { DatabaseConfig } from '../config.js'
import type { Database, Db } from './schema.js'
import { SqliteCompatPlugin, createSqliteDialect } from './sqlite.js'
import { createPostgresDialect, createPostgresPool } from './postgres.js'
import { registerImmediateReader } from './precompiled.js'

export type Engine = DatabaseConfig['kind']

export interface DatabaseHandle {
  db: Db
  engine: Engine
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  close(): Promise<void>
}

function createKysely(config: DatabaseConfig): Db {
  if (config.kind === 'postgres') {
    return new Kysely<Database>({ dialect: createPostgresDialect(createPostgresPool(config.url, config.poolSize)) })
  }
  const { dialect, readNow } = createSqliteDialect(config.url)
  const db = new Kysely<Database>({ dialect, plugins: [new SqliteCompatPlugin()] })
  registerImmediateReader(db, readNow)
  return db
}

export function createDatabase(config: DatabaseConfig): DatabaseHandle {
  const db = createKysely(config)
  return {
    db,
    engine: config.kind,
    async ping() {
      await sql`select 1`.execute(db)
    },
    async close() {
      await db.destroy()
    },
  }
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
}

/** True when the error is a violation of a unique index or primary key, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error)
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

/** True when the error is a foreign-key violation (the referenced row is gone), on either engine. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error)
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}
