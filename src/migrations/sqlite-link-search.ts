import { sql, type Kysely } from 'kysely'

/**
 * SQLite: the links' trigram index (`links_fts`) with each column followed by `padding`: its two
 * triggers made again and every link indexed again. The padding (U+0001, which no search term
 * holds) lets a term shorter than a trigram begin one wherever it stands, the end of a column
 * included: one of it for a term of two characters, two for a term of one
 * (docs/decisions/0087-two-character-terms-from-the-trigram-vocabulary.md,
 * 0089-one-character-terms-from-the-trigram-vocabulary.md).
 */
export async function rebuildLinkSearch(
  db: Kysely<unknown>,
  padding: ReturnType<typeof sql>,
): Promise<void> {
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
