import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  // Keys sort byte-wise on both engines ("C" collation on PostgreSQL, SQLite's default BINARY), so
  // the listing's order and its keyset cursor are the same whatever the server's locale.
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) =>
      (engine === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).primaryKey(),
    )
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('settings').execute()
}
