import { sql, type Kysely } from 'kysely'
import type { MigrationEngine } from './column-types.js'
import { trigramOperatorClass } from './pg-trigram.js'

/**
 * PostgreSQL: the links search (GET /api/links?q=) compares one stored, lower-cased copy of a
 * link's title, URL and slug, joined by line feeds, and one `pg_trgm` GIN index covers it instead
 * of the three over lower(title), lower(url) and lower(slug) (0065_link_search). A search term has
 * no control characters, so it is a substring of that text exactly when it is a substring of one
 * of the three. A search rechecks every candidate the index gives, and lower() under a UTF-8
 * locale, computed three times per candidate at each search, would be most of that work
 * (docs/decisions/0078-link-search-stored-lower-case.md). Nothing changes on SQLite.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const opclass = await trigramOperatorClass(db)
  const lowered = sql`coalesce(lower(title), '') || E'\\n' || lower(url) || E'\\n'
    || coalesce(lower(slug), '')`
  await sql`alter table links
    add column search_lower text generated always as (${lowered}) stored`.execute(db)
  await sql`create index links_search_lower_trgm_idx on links
    using gin (search_lower ${opclass}) with (gin_pending_list_limit = 64)`.execute(db)
  for (const column of ['title', 'url', 'slug'])
    await sql`drop index ${sql.id(`links_${column}_trgm_idx`)}`.execute(db)
}

export async function down(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  if (engine !== 'postgres') return
  const opclass = await trigramOperatorClass(db)
  for (const column of ['title', 'url', 'slug'])
    await sql`create index ${sql.id(`links_${column}_trgm_idx`)} on links
      using gin (lower(${sql.id(column)}) ${opclass}) with (gin_pending_list_limit = 64)`.execute(
      db,
    )
  await sql`drop index links_search_lower_trgm_idx`.execute(db)
  await sql`alter table links drop column search_lower`.execute(db)
}
