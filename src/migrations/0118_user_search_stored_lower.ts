import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'
import { trigramOperatorClass } from './pg-trigram.js'

/**
 * PostgreSQL: the administrators' user search compares lower-cased copies of the email and the
 * name, kept by PostgreSQL itself (stored generated columns), and its trigram index covers their
 * text instead of lower(email || ' ' || name). A search rechecks every candidate the index gives,
 * and lower() under a UTF-8 locale is most of that work when computed at each search
 * (docs/decisions/0072-user-search-stored-lower-case.md). Nothing changes on SQLite.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const opclass = await trigramOperatorClass(db)
  await sql`alter table users
    add column email_lower text generated always as (lower(email)) stored,
    add column name_lower text generated always as (lower(name)) stored`.execute(db)
  await sql`create index users_search_lower_trgm_idx on users
    using gin ((email_lower || ' ' || name_lower) ${opclass})
    with (gin_pending_list_limit = 64)`.execute(db)
  await sql`drop index users_search_trgm_idx`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const opclass = await trigramOperatorClass(db)
  await sql`create index users_search_trgm_idx on users
    using gin (lower(email || ' ' || name) ${opclass})
    with (gin_pending_list_limit = 64)`.execute(db)
  await sql`drop index users_search_lower_trgm_idx`.execute(db)
  await sql`alter table users drop column email_lower, drop column name_lower`.execute(db)
}
