import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * A link given to a person waits here until they accept it: one pending offer per link, for 7 days.
 * The offer names the owner the link had when it was offered (the sender, or an organization) and
 * its last change, so it lapses when the link changes hands or is edited meanwhile; deleting the
 * link, the sender or the recipient deletes it.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('link_transfer_offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('from_user_id', 'text', (c) =>
      c.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('from_organization_id', 'text', (c) =>
      c.references('organizations.id').onDelete('cascade'),
    )
    .addColumn('to_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The link as it was offered: a link edited since is not the one the recipient was offered.
    .addColumn('link_updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('link_transfer_offers_link_key')
    .on('link_transfer_offers')
    .column('link_id')
    .unique()
    .execute()
  await db.schema
    .createIndex('link_transfer_offers_to_idx')
    .on('link_transfer_offers')
    .column('to_user_id')
    .execute()
  await db.schema
    .createIndex('link_transfer_offers_from_idx')
    .on('link_transfer_offers')
    .column('from_user_id')
    .execute()
  await db.schema
    .createIndex('link_transfer_offers_expires_idx')
    .on('link_transfer_offers')
    .column('expires_at')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_transfer_offers').execute()
}
