/**
 * PostgreSQL: the service's tables whose planner statistics are stale — changed since their last
 * ANALYZE by more rows than autovacuum's default threshold for one (50 rows and a tenth of the
 * table: autovacuum_analyze_threshold, autovacuum_analyze_scale_factor) — and the ANALYZE of one.
 */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

/**
 * The tables of the service's schema past the threshold that its role may analyze (an owner's;
 * PostgreSQL skips another's with a warning), most changed first.
 */
export async function findStaleTables(ex: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select s.relname as name
    from pg_stat_user_tables s
    join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema()
      and pg_has_role(c.relowner, 'MEMBER')
      and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
    order by s.n_mod_since_analyze desc`.execute(ex)
  return rows.map((row) => row.name)
}

/**
 * ANALYZE of one table, unless another instance holds the same table's analysis (a transaction
 * advisory lock on its name): returns whether it ran.
 */
export async function analyzeTable(ex: Executor, name: string): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(hashtext(${`switchboard.analyze.${name}`})) as locked`.execute(
    ex,
  )
  if (rows[0]?.locked !== true) return false
  await sql`analyze ${sql.id(name)}`.execute(ex)
  return true
}
