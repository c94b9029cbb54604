import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * SQLite: the administrators' user search decides its page in `user_search_rows`, as the links'
 * search does in `link_search_rows` (0115_link_search_index_only). Each search row gains the user's
 * creation time, so a page of matches is ordered and cut there — one small row per match, read by
 * its integer key — and only the page's users are read (a user's creation time never changes). The
 * trigram phrase decides the match, as for the links. Nothing changes on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  const statements = [
    // Every row gets its time below; the insert trigger writes it for every user after.
    sql`alter table user_search_rows add column created_at text not null default ''`,
    sql`update user_search_rows set created_at =
      (select users.created_at from users where users.id = user_search_rows.user_id)`,
    sql`drop trigger users_fts_insert`,
    sql`create trigger users_fts_insert after insert on users begin
      insert into user_search_rows (user_id, created_at) values (new.id, new.created_at);
      insert into users_fts (rowid, email, name) values (last_insert_rowid(), new.email, new.name);
    end`,
  ]
  for (const statement of statements) await statement.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine === 'postgres') return
  const statements = [
    sql`drop trigger users_fts_insert`,
    sql`create trigger users_fts_insert after insert on users begin
      insert into user_search_rows (user_id) values (new.id);
      insert into users_fts (rowid, email, name) values (last_insert_rowid(), new.email, new.name);
    end`,
    sql`alter table user_search_rows drop column created_at`,
  ]
  for (const statement of statements) await statement.execute(db)
}
