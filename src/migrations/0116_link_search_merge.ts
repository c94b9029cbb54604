import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * SQLite: the `merge` command that runs after a large import (links/search-index.repo.ts) merges
 * every level of `links_fts` that holds 2 segments or more (FTS5's `usermerge`; its default, 4,
 * would leave up to 3 per level), so that a search looks each trigram up in one segment per level
 * (docs/decisions/0067-search-index-merged-after-an-import.md). The setting is kept in the
 * table's own configuration (`links_fts_config`). Nothing changes on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await sql`insert into links_fts (links_fts, rank) values ('usermerge', 2)`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await sql`insert into links_fts (links_fts, rank) values ('usermerge', 4)`.execute(db)
}
