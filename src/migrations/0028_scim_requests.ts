/**
 * The SCIM request log — the last SCIM requests an identity provider made (method, path,
 * status, scimType, duration, credential), so an administrator can see why a provisioning run
 * failed. A table rather than a per-process ring: with several instances on one PostgreSQL
 * database every instance's requests belong in one list. Bounded by the writer (it prunes to the
 * newest 50 after each insert); no body, query string or secret is ever stored.
 */
import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('scim_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('credential_id', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('scim_type', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('scim_requests_created_at_idx')
    .on('scim_requests')
    .columns(['created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scim_requests').execute()
}
