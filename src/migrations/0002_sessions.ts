import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .execute()
  await db.schema
    .createIndex('sessions_user_id_idx')
    .on('sessions')
    .columns(['user_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute()
}
