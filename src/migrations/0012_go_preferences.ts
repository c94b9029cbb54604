import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('go_preferences')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The slug lower-cased, as links.slug_key.
    .addColumn('slug_key', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('go_preferences_pkey', ['user_id', 'slug_key'])
    .execute()
  await db.schema
    .createIndex('go_preferences_link_idx')
    .on('go_preferences')
    .column('link_id')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('go_preferences').execute()
}
