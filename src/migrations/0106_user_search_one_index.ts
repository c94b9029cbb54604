import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'

/**
 * PostgreSQL: the administrators' user search (GET /api/admin/users?q=) reads one `pg_trgm` GIN
 * index over `lower(email || ' ' || name)` instead of one per column (0090_user_search). A
 * substring of the email or of the name is a substring of that text, so the index finds every
 * match; the search's own LIKE on each column still decides. With the two indexes the planner
 * weighed two bitmap scans and their union against reading the table, and at 5,000 people chose
 * the table: 2.8 ms where the indexes took 0.2 ms
 * (docs/decisions/0046-user-search-one-trigram-index.md). Nothing changes on SQLite.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const found = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  const opclass = sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`
  await sql`create index users_search_trgm_idx on users
    using gin (lower(email || ' ' || name) ${opclass})
    with (gin_pending_list_limit = 64)`.execute(db)
  for (const column of ['email', 'name'])
    await sql`drop index ${sql.id(`users_${column}_trgm_idx`)}`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const found = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  const opclass = sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`
  for (const column of ['email', 'name'])
    await sql`create index ${sql.id(`users_${column}_trgm_idx`)} on users
      using gin (lower(${sql.id(column)}) ${opclass}) with (gin_pending_list_limit = 64)`.execute(
      db,
    )
  await sql`drop index users_search_trgm_idx`.execute(db)
}
