import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * Recently deleted links: a deleted link leaves `links` at once — so it frees its slug,
 * stops forwarding and disappears from every read without each query learning a "deleted" flag —
 * and waits here for 30 days, restorable with its tags and click counts (the `snapshot`, JSON).
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('deleted_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The owner it had, like links: a user's go with the user, an organization's with the
    // organization.
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) =>
      c.references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('deleted_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('slug', 'text')
    .addColumn('deleted_at', t.timestamp, (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute()
  // The purge deletes by age across all owners; the list reads one owner's, newest first.
  await db.schema
    .createIndex('deleted_links_deleted_at_idx')
    .on('deleted_links')
    .columns(['deleted_at', 'id'])
    .execute()
  await db.schema
    .createIndex('deleted_links_user_idx')
    .on('deleted_links')
    .column('user_id')
    .execute()
  await db.schema
    .createIndex('deleted_links_org_idx')
    .on('deleted_links')
    .column('organization_id')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deleted_links').execute()
}
