import { sql, type Kysely } from 'kysely'

/** pg_trgm's GIN operator class, named with the schema the extension lives in. */
export async function trigramOperatorClass(db: Kysely<unknown>) {
  const found = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)
  return sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`
}
