/**
 * Indexes for the lookups of people that grow with a company:
 *
 * - The administrators' user search (GET /api/admin/users?q=, a substring of the email or name,
 *   from 3 characters on) reads its candidates from trigrams, as the links search does
 *   (0065_link_search): PostgreSQL `pg_trgm` GIN indexes on lower(email) and lower(name), the very
 *   expressions of the search's LIKE; on SQLite `users_fts`, an FTS5 trigram table over the two
 *   columns kept by triggers, its rowids those of `user_search_rows` (user id ↔ integer) because
 *   VACUUM (and so a backup) may renumber the users' own rowids.
 * - SCIM's `name.familyName` filters (Okta and Entra look people up by it) compare a stored
 *   lower-cased copy, `scim_users.family_name_lower` (JavaScript's toLowerCase, as userName's),
 *   indexed bytewise; existing rows get theirs here, in batches.
 */
import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

const BATCH = 500

/** Writes the lower-cased family name of every SCIM account that has one and no copy yet. */
async function fillFamilyNames(db: Kysely<unknown>): Promise<void> {
  for (;;) {
    const rows = (
      await sql<{ user_id: string; family_name: string }>`
        select user_id, family_name from scim_users
        where family_name is not null and family_name_lower is null
        order by user_id limit ${BATCH}`.execute(db)
    ).rows
    if (rows.length === 0) return
    const values = sql.join(
      rows.map((row) => sql`(${row.user_id}, ${row.family_name.toLowerCase()})`),
    )
    await sql`
      with folded(user_id, family_name_lower) as (values ${values})
      update scim_users
      set family_name_lower = (
        select folded.family_name_lower from folded where folded.user_id = scim_users.user_id)
      where user_id in (select folded.user_id from folded)`.execute(db)
  }
}

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  await db.schema.alterTable('scim_users').addColumn('family_name_lower', 'text').execute()
  await fillFamilyNames(db)
  // The filter compares bytewise (collate "C" on PostgreSQL), so the index does too.
  const column =
    engine === 'postgres' ? sql`(family_name_lower collate "C")` : sql`family_name_lower`
  await sql`create index scim_users_family_name_lower_idx on scim_users (${column})`.execute(db)
  if (engine === 'postgres') await upPostgres(db)
  else await upSqlite(db)
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  const found = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  const opclass = sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`
  for (const column of ['email', 'name']) {
    await sql`create index ${sql.id(`users_${column}_trgm_idx`)} on users
      using gin (lower(${sql.id(column)}) ${opclass}) with (gin_pending_list_limit = 64)`.execute(
      db,
    )
  }
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table user_search_rows (
      id integer primary key,
      user_id text not null unique)`,
    sql`create virtual table users_fts using fts5(email, name, tokenize = 'trigram')`,
    sql`insert into user_search_rows (user_id) select id from users`,
    sql`insert into users_fts (rowid, email, name)
      select r.id, u.email, u.name from user_search_rows r join users u on u.id = r.user_id`,
    sql`create trigger users_fts_insert after insert on users begin
      insert into user_search_rows (user_id) values (new.id);
      insert into users_fts (rowid, email, name) values (last_insert_rowid(), new.email, new.name);
    end`,
    sql`create trigger users_fts_delete after delete on users begin
      delete from users_fts where rowid = (select id from user_search_rows where user_id = old.id);
      delete from user_search_rows where user_id = old.id;
    end`,
    sql`create trigger users_fts_update after update of email, name on users begin
      update users_fts set email = new.email, name = new.name
        where rowid = (select id from user_search_rows where user_id = new.id);
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') {
    for (const column of ['email', 'name'])
      await sql`drop index ${sql.id(`users_${column}_trgm_idx`)}`.execute(db)
  } else {
    for (const trigger of ['users_fts_insert', 'users_fts_delete', 'users_fts_update'])
      await sql`drop trigger ${sql.id(trigger)}`.execute(db)
    await sql`drop table users_fts`.execute(db)
    await sql`drop table user_search_rows`.execute(db)
  }
  await sql`drop index scim_users_family_name_lower_idx`.execute(db)
  await db.schema.alterTable('scim_users').dropColumn('family_name_lower').execute()
}
