import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  // Stripe event ids already processed: a redelivered event changes nothing.
  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', t.timestamp, (c) => c.notNull())
    .execute()
  // When the Stripe event that last set the plan was created: Stripe does not deliver events in
  // order, so an older event arriving late must not undo a newer one.
  await db.schema.alterTable('organizations').addColumn('plan_event_at', t.timestamp).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('plan_event_at').execute()
  await db.schema.dropTable('billing_events').execute()
}
