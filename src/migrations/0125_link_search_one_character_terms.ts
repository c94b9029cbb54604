import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'
import { rebuildLinkSearch } from './sqlite-link-search.js'

/**
 * SQLite: the links' trigram index answers a rare term of one character too. Each column is
 * indexed with two U+0001 after it instead of one, so that every place a single character stands
 * begins one of the index's trigrams — the last character of a column and a column of one
 * character included — and the term's links are those of the trigrams that begin with it, which
 * `links_fts_terms` lists (docs/decisions/0089-one-character-terms-from-the-trigram-vocabulary.md).
 * A longer term finds the same links: none of its trigrams holds U+0001, and a two-character term
 * still begins a trigram wherever it stands. Nothing changes on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await rebuildLinkSearch(db, sql`char(1, 1)`)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await rebuildLinkSearch(db, sql`char(1)`)
}
