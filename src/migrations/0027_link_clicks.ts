import type { Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/** Clicks per link per UTC day: kept 400 days, written in batches by go/clicks.ts. */
export async function up(db: Kysely<unknown>, _engine: MigrationEngine): Promise<void> {
  await db.schema
    .createTable('link_clicks')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    // YYYY-MM-DD (UTC): text sorts and compares the same on both engines.
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_clicks_pkey', ['link_id', 'day'])
    .execute()
  // The retention sweep deletes by day across all links.
  await db.schema.createIndex('link_clicks_day_idx').on('link_clicks').column('day').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_clicks').execute()
}
