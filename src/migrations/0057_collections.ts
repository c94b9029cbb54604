import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * Collections: named, ordered sets of links, a person's or an organization's, shareable with
 * teams (whose members then see the collection's links, read-only). `collection_links.slug_key`
 * repeats the link's, kept equal by the application, for /go/{slug}'s index probe.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) =>
      c.references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('collections_user_idx').on('collections').column('user_id').execute()
  await db.schema
    .createIndex('collections_organization_idx')
    .on('collections')
    .column('organization_id')
    .execute()

  await db.schema
    .createTable('collection_links')
    .addColumn('collection_id', 'text', (c) =>
      c.notNull().references('collections.id').onDelete('cascade'),
    )
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('slug_key', 'text')
    .addPrimaryKeyConstraint('collection_links_pkey', ['collection_id', 'link_id'])
    .execute()
  await db.schema
    .createIndex('collection_links_slug_idx')
    .on('collection_links')
    .columns(['collection_id', 'slug_key', 'link_id'])
    .execute()
  await db.schema
    .createIndex('collection_links_link_idx')
    .on('collection_links')
    .column('link_id')
    .execute()

  await db.schema
    .createTable('collection_teams')
    .addColumn('collection_id', 'text', (c) =>
      c.notNull().references('collections.id').onDelete('cascade'),
    )
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('collection_teams_pkey', ['collection_id', 'team_id'])
    .execute()
  await db.schema
    .createIndex('collection_teams_team_idx')
    .on('collection_teams')
    .columns(['team_id', 'collection_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('collection_teams').execute()
  await db.schema.dropTable('collection_links').execute()
  await db.schema.dropTable('collections').execute()
}
