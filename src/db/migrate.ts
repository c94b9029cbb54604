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
    handle.engine === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema : undefined
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => provided },
    ...(schema !== undefined && { migrationTableSchema: schema }),
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${error instanceof Error ? error.message : inspect(error)}`, {
      cause: error,
    })
  }
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) }
}
