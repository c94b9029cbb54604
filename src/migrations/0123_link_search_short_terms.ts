import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'
import { rebuildLinkSearch as rebuild } from './sqlite-link-search.js'

/**
 * SQLite: the links' trigram index answers terms of two characters too. Each column is indexed
 * with U+0001 after it (a character no search term holds: the API refuses control characters), so
 * that every place a two-character term stands in a title, URL or slug begins a trigram of the
 * index — at the end of a column, and a column of two characters, included — and the term's links
 * are those of the index's trigrams that begin with it, which `links_fts_terms` (FTS5's
 * vocabulary of the index, by instance) lists in order
 * (docs/decisions/0087-two-character-terms-from-the-trigram-vocabulary.md). A term of three
 * characters or more finds the same links with the padding as without: none of its trigrams
 * holds U+0001. Nothing changes on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await rebuild(db, sql`char(1)`)
  await sql`create virtual table links_fts_terms using fts5vocab(links_fts, 'instance')`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await sql`drop table links_fts_terms`.execute(db)
  await rebuild(db, sql`''`)
}
