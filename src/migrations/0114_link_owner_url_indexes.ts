import type { Kysely } from 'kysely'

/**
 * An owner's links by URL. An import asks, 200 URLs at a time, which of its file's URLs the
 * owner's links already point at (links/repo.ts findLinkIdsByUrl); with only the owner's index by
 * creation time that read walks all of the owner's links for every 200, and an import's cost grows
 * with what the owner already has (docs/decisions/0062-an-owners-links-by-url.md). URLs are stored
 * normalised, ASCII and at most 2,048 characters long, well within an index entry on both engines.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('links_user_url_idx')
    .on('links')
    .columns(['user_id', 'url'])
    .execute()
  await db.schema
    .createIndex('links_org_url_idx')
    .on('links')
    .columns(['organization_id', 'url'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_org_url_idx').execute()
  await db.schema.dropIndex('links_user_url_idx').execute()
}
