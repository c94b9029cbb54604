import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // The name lower-cased by the application: a user's tag names are unique ignoring case.
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('tags_user_name_key_key')
    .on('tags')
    .columns(['user_id', 'name_key'])
    .unique()
    .execute()

  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Exactly one owner: a user (personal link) or an organization (shared with its members).
    // Personal links go with their user; shared ones stay with the organization when their creator
    // leaves or is deleted.
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) =>
      c.references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('slug', 'text')
    // The slug lower-cased: go-links match ignoring case.
    .addColumn('slug_key', 'text')
    .addColumn('forwarding_enabled', t.boolean, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('links_one_owner', sql`(user_id is null) <> (organization_id is null)`)
    .execute()
  await db.schema
    .createIndex('links_user_created_idx')
    .on('links')
    .columns(['user_id', 'created_at', 'id'])
    .execute()
  await db.schema
    .createIndex('links_org_created_idx')
    .on('links')
    .columns(['organization_id', 'created_at', 'id'])
    .execute()
  // One slug names one link per owner; across owners a slug may repeat (the go-link chooser).
  // NULL owners and NULL slugs never collide, on both engines.
  await db.schema
    .createIndex('links_user_slug_key')
    .on('links')
    .columns(['user_id', 'slug_key'])
    .unique()
    .execute()
  await db.schema
    .createIndex('links_org_slug_key')
    .on('links')
    .columns(['organization_id', 'slug_key'])
    .unique()
    .execute()

  await db.schema
    .createTable('link_tags')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('tag_id', 'text', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('link_tags_pkey', ['link_id', 'tag_id'])
    .execute()
  await db.schema
    .createIndex('link_tags_tag_idx')
    .on('link_tags')
    .columns(['tag_id', 'link_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_tags').execute()
  await db.schema.dropTable('links').execute()
  await db.schema.dropTable('tags').execute()
}
