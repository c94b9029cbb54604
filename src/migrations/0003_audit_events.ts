import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  // No foreign keys: the trail must outlive the users and objects it mentions.
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', t.timestamp, (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute()
  await db.schema
    .createIndex('audit_events_at_idx')
    .on('audit_events')
    .columns(['at', 'id'])
    .execute()
  await db.schema
    .createIndex('audit_events_action_idx')
    .on('audit_events')
    .columns(['action', 'at'])
    .execute()
  await db.schema
    .createIndex('audit_events_actor_idx')
    .on('audit_events')
    .columns(['actor_id', 'at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').execute()
}
