/**
 * Runs the numbered migrations of src/migrations. Used at start-up and by `switchboard migrate`.
 * On PostgreSQL, Kysely's migrator takes a lock, so instances starting together migrate once.
 */
import { inspect } from 'node:util'
import { Migrator, sql, type Migration } from 'kysely'
import { migrations } from '../migrations/index.js'
import type { DatabaseHandle } from './client.js'

export interface MigrationReport {
  applied: string[]
}

export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationReport> {
  const provided: Record<string, Migration> = {}
  for (const [name, migration] of Object.entries(migrations)) {
    provided[name] = {
      up: (db) => migration.up(db, handle.engine),
      ...(migration.down && { down: (db) => migration.down!(db, handle.engine) }),
    }
  }
  // Kysely looks for its bookkeeping tables in every schema; naming ours keeps two databases that
  // share a PostgreSQL server (one schema each) from seeing each other's migration state.
  const schema =
    handle.engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db))
          .rows[0]?.schema
      : undefined
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => provided },
    ...(schema !== undefined && { migrationTableSchema: schema }),
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')
    throw new Error(
      `Migration ${failed?.migrationName ?? '(unknown)'} failed: ${error instanceof Error ? error.message : inspect(error)}`,
      {
        cause: error,
      },
    )
  }
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) }
}

export interface MigrationState {
  applied: string[]
  /** Known to this version, not yet applied. */
  pending: string[]
  /** Applied, but unknown to this version: the database was migrated by a newer one. */
  unknown: string[]
}

/** What has been applied, without applying anything (`switchboard doctor`). */
export async function migrationState(handle: DatabaseHandle): Promise<MigrationState> {
  const exists =
    handle.engine === 'postgres'
      ? (
          await sql<{
            found: string | null
          }>`select to_regclass('kysely_migration')::text as found`.execute(handle.db)
        ).rows[0]?.found != null
      : (
          await sql`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(
            handle.db,
          )
        ).rows.length > 0
  const applied = exists
    ? (
        await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          handle.db,
        )
      ).rows.map((row) => row.name)
    : []
  const known = Object.keys(migrations)
  return {
    applied,
    pending: known.filter((name) => !applied.includes(name)),
    unknown: applied.filter((name) => !known.includes(name)),
  }
}
