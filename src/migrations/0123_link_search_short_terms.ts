import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

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

/** The index's triggers and every row written again, each column followed by `padding`. */
async function rebuild(db: Kysely<unknown>, padding: ReturnType<typeof sql>): Promise<void> {
  const padded = (column: string) => sql`${sql.raw(column)} || ${padding}`
  const columns = (row: string) =>
    sql.join(['title', 'url', 'slug'].map((name) => padded(`${row}.${name}`)))
  const statements = [
    sql`drop trigger links_fts_insert`,
    sql`drop trigger links_fts_update`,
    sql`insert into links_fts (links_fts) values ('delete-all')`,
    sql`insert into links_fts (rowid, title, url, slug)
      select r.id, ${columns('l')} from link_search_rows r join links l on l.id = r.link_id`,
    sql`insert into links_fts (links_fts) values ('optimize')`,
    sql`create trigger links_fts_insert after insert on links begin
      insert into link_search_rows (link_id, user_id, organization_id, created_at)
        values (new.id, new.user_id, new.organization_id, new.created_at);
      insert into links_fts (rowid, title, url, slug) values (last_insert_rowid(), ${columns('new')});
    end`,
    // A contentless table's row is updated with all of its columns.
    sql`create trigger links_fts_update after update of title, url, slug on links begin
      update links_fts set (title, url, slug) = (${columns('new')})
        where rowid = (select id from link_search_rows where link_id = new.id);
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}
