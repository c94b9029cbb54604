import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * Indexes that answer a substring search of the links (GET /api/links?q=, of 3 characters or more)
 * without reading every visible link: the matches' candidates come from trigrams.
 *
 * - PostgreSQL: `pg_trgm` GIN indexes on lower(title), lower(url) and lower(slug) — the very
 *   expressions of the search's LIKE, so the planner uses them for it. The extension is created
 *   when absent (a trusted extension: the database's owner may), and its operator class is named
 *   with the schema it lives in. A short pending list (64 kB, the least): a search reads all of it,
 *   and at the default 4 MB that was some 350 pages per index after an import of 100,000 links;
 *   without one (fastupdate off), inserting 20,000 links took longer than a statement may.
 * - SQLite: `links_fts`, an FTS5 table with the trigram tokenizer over the same three columns,
 *   kept by triggers. Its rowids are those of `link_search_rows` (link id ↔ integer), not the
 *   links' own rowids, which VACUUM (and so a backup) may renumber; no foreign key, so that the
 *   delete trigger still finds the row it removes.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') await upPostgres(db)
  else await upSqlite(db)
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  const schemaOf = () =>
    sql<{ schema: string }>`select n.nspname as schema from pg_extension e
      join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  let found = await schemaOf()
  if (found.rows.length === 0) {
    await sql`create extension if not exists pg_trgm`.execute(db)
    found = await schemaOf()
  }
  const opclass = sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`
  for (const column of ['title', 'url', 'slug']) {
    await sql`create index ${sql.id(`links_${column}_trgm_idx`)} on links
      using gin (lower(${sql.id(column)}) ${opclass}) with (gin_pending_list_limit = 64)`.execute(
      db,
    )
  }
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table link_search_rows (
      id integer primary key,
      link_id text not null unique)`,
    sql`create virtual table links_fts using fts5(title, url, slug, tokenize = 'trigram')`,
    sql`insert into link_search_rows (link_id) select id from links`,
    sql`insert into links_fts (rowid, title, url, slug)
      select r.id, l.title, l.url, l.slug from link_search_rows r join links l on l.id = r.link_id`,
    sql`create trigger links_fts_insert after insert on links begin
      insert into link_search_rows (link_id) values (new.id);
      insert into links_fts (rowid, title, url, slug)
        values (last_insert_rowid(), new.title, new.url, new.slug);
    end`,
    sql`create trigger links_fts_delete after delete on links begin
      delete from links_fts
        where rowid = (select id from link_search_rows where link_id = old.id);
      delete from link_search_rows where link_id = old.id;
    end`,
    sql`create trigger links_fts_update after update of title, url, slug on links begin
      update links_fts set title = new.title, url = new.url, slug = new.slug
        where rowid = (select id from link_search_rows where link_id = new.id);
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') {
    for (const column of ['title', 'url', 'slug'])
      await sql`drop index ${sql.id(`links_${column}_trgm_idx`)}`.execute(db)
    return
  }
  for (const trigger of ['links_fts_insert', 'links_fts_delete', 'links_fts_update'])
    await sql`drop trigger ${sql.id(trigger)}`.execute(db)
  await sql`drop table links_fts`.execute(db)
  await sql`drop table link_search_rows`.execute(db)
}
