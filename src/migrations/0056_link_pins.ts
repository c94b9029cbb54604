import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/** Each person's pinned links: pinning a link someone shares pins it for the caller alone. */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('link_pins')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('pinned_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_pins_pkey', ['user_id', 'link_id'])
    .execute()
  // A deleted link takes its pins with it.
  await db.schema.createIndex('link_pins_link_idx').on('link_pins').column('link_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_pins').execute()
}
