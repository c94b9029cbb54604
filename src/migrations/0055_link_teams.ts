import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * Links shared with teams: every member of a team sees the team's links, read-only. `slug_key`
 * repeats the link's, kept equal by the application, so /go/{slug} finds a team's link with that
 * slug by one index probe (team, slug) instead of reading each of the team's links.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('link_teams')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('slug_key', 'text')
    .addColumn('shared_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_teams_pkey', ['link_id', 'team_id'])
    .execute()
  await db.schema
    .createIndex('link_teams_team_slug_idx')
    .on('link_teams')
    .columns(['team_id', 'slug_key', 'link_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_teams').execute()
}
