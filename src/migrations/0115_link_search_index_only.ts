import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * SQLite: the links' search becomes an index only. `links_fts` keeps the trigrams of each link's
 * title, URL and slug and no copy of them (a contentless FTS5 table whose rows can still be
 * deleted); what a search page filters and orders its matches by — the link's owner and creation
 * time — moves beside the link's id into `link_search_rows`, an ordinary table whose rows the
 * search reads by their integer key. The trigram phrase decides the match: it is the substring
 * match ignoring case, with Unicode's case folding where SQLite's LIKE folds only ASCII
 * (docs/decisions/0045-link-search-page-from-the-search-table.md). Rowids stay those of
 * `link_search_rows`, an INTEGER PRIMARY KEY that VACUUM (and so a backup) keeps. Nothing changes
 * on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await dropTriggers(db)
  const statements = [
    sql`drop table links_fts`,
    sql`create table link_search_rows_next (
      id integer primary key,
      link_id text not null unique,
      user_id text,
      organization_id text,
      created_at text not null)`,
    sql`insert into link_search_rows_next (id, link_id, user_id, organization_id, created_at)
      select r.id, l.id, l.user_id, l.organization_id, l.created_at
      from link_search_rows r join links l on l.id = r.link_id`,
    sql`drop table link_search_rows`,
    sql`alter table link_search_rows_next rename to link_search_rows`,
    sql`create virtual table links_fts using fts5(title, url, slug,
      content = '', contentless_delete = 1, tokenize = 'trigram')`,
    sql`insert into links_fts (rowid, title, url, slug)
      select r.id, l.title, l.url, l.slug from link_search_rows r join links l on l.id = r.link_id`,
    // One b-tree per term instead of the segments the fill left.
    sql`insert into links_fts (links_fts) values ('optimize')`,
    sql`create trigger links_fts_insert after insert on links begin
      insert into link_search_rows (link_id, user_id, organization_id, created_at)
        values (new.id, new.user_id, new.organization_id, new.created_at);
      insert into links_fts (rowid, title, url, slug)
        values (last_insert_rowid(), new.title, new.url, new.slug);
    end`,
    deleteTrigger(),
    // A contentless table's row is updated with all of its columns.
    sql`create trigger links_fts_update after update of title, url, slug on links begin
      update links_fts set title = new.title, url = new.url, slug = new.slug
        where rowid = (select id from link_search_rows where link_id = new.id);
    end`,
    sql`create trigger link_search_rows_update
      after update of user_id, organization_id, created_at on links begin
      update link_search_rows set user_id = new.user_id,
          organization_id = new.organization_id, created_at = new.created_at
        where link_id = new.id;
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}

/** The same in both layouts: a link's search row and its trigrams go with it. */
function deleteTrigger() {
  return sql`create trigger links_fts_delete after delete on links begin
      delete from links_fts
        where rowid = (select id from link_search_rows where link_id = old.id);
      delete from link_search_rows where link_id = old.id;
    end`
}

async function dropTriggers(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['links_fts_insert', 'links_fts_delete', 'links_fts_update'])
    await sql`drop trigger ${sql.id(trigger)}`.execute(db)
}

/** Back to 0105's search table: the text and the owners' copies in `links_fts` itself. */
export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  await dropTriggers(db)
  await sql`drop trigger link_search_rows_update`.execute(db)
  const statements = [
    sql`drop table links_fts`,
    sql`create table link_search_rows_next (id integer primary key, link_id text not null unique)`,
    sql`insert into link_search_rows_next (id, link_id) select id, link_id from link_search_rows`,
    sql`drop table link_search_rows`,
    sql`alter table link_search_rows_next rename to link_search_rows`,
    sql`create virtual table links_fts using fts5(title, url, slug,
      link_id unindexed, user_id unindexed, organization_id unindexed, created_at unindexed,
      tokenize = 'trigram')`,
    sql`insert into links_fts
        (rowid, title, url, slug, link_id, user_id, organization_id, created_at)
      select r.id, l.title, l.url, l.slug, l.id, l.user_id, l.organization_id, l.created_at
      from link_search_rows r join links l on l.id = r.link_id`,
    sql`create trigger links_fts_insert after insert on links begin
      insert into link_search_rows (link_id) values (new.id);
      insert into links_fts
          (rowid, title, url, slug, link_id, user_id, organization_id, created_at)
        values (last_insert_rowid(), new.title, new.url, new.slug,
          new.id, new.user_id, new.organization_id, new.created_at);
    end`,
    deleteTrigger(),
    sql`create trigger links_fts_update
      after update of title, url, slug, user_id, organization_id, created_at on links begin
      update links_fts set title = new.title, url = new.url, slug = new.slug,
          user_id = new.user_id, organization_id = new.organization_id,
          created_at = new.created_at
        where rowid = (select id from link_search_rows where link_id = new.id);
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}
