import { sql, type Kysely } from 'kysely'

/** The days the counts cover, today included (the Links list's `clicks_30d`). */
const WINDOW_DAYS = 30

/**
 * Each link keeps its clicks of the last 30 UTC days (`recent_clicks`), and the owners' indexes
 * over it let the Links list's most-clicked order read each owner's most clicked links in order,
 * instead of summing the clicks of every visible link for every page
 * (docs/decisions/0085-recent-clicks-kept-on-the-link.md). `link_click_window` holds the first
 * day the counts cover; the counts are filled here from the clicks already kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('recent_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('link_click_window')
    // One row: a constant key.
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('first_day', 'text', (c) => c.notNull())
    .execute()
  const firstDay = new Date(Date.now() - (WINDOW_DAYS - 1) * 24 * 60 * 60 * 1000)
    .toISOString()
    .slice(0, 10)
  await sql`update links set recent_clicks = (select sum(link_clicks.clicks) from link_clicks
      where link_clicks.link_id = links.id and link_clicks.day >= ${firstDay})
    where links.id in (select link_clicks.link_id from link_clicks
      where link_clicks.day >= ${firstDay})`.execute(db)
  await sql`insert into link_click_window (id, first_day) values (1, ${firstDay})`.execute(db)
  await db.schema
    .createIndex('links_user_clicks_idx')
    .on('links')
    .columns(['user_id', 'recent_clicks', 'id'])
    .execute()
  await db.schema
    .createIndex('links_org_clicks_idx')
    .on('links')
    .columns(['organization_id', 'recent_clicks', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_org_clicks_idx').execute()
  await db.schema.dropIndex('links_user_clicks_idx').execute()
  await db.schema.dropTable('link_click_window').execute()
  await db.schema.alterTable('links').dropColumn('recent_clicks').execute()
}
