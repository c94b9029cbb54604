/** SQL for the instance's slug matching: re-keying every link when the rule changes. */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import { lockRowsInIdOrder } from '../../db/row-locks.js'
import type { Executor } from '../../db/schema.js'
import { syncSlugKeys } from './shares.repo.js'

/** The folded key in SQL, the same as url.ts foldSlug(): lower case without '-' and '_'. */
function folded(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`lower(replace(replace(${column}, '-', ''), '_', ''))`
}

export interface FoldConflict {
  key: string
  slugs: string[]
  user_id: string | null
  organization_id: string | null
}

/**
 * Slugs of one owner that would name the same link once folded (they block switching folding on).
 */
export async function findFoldConflicts(ex: Executor, limit: number): Promise<FoldConflict[]> {
  const key = folded(sql.ref('links.slug'))
  const rows = await ex
    .selectFrom('links')
    .select([key.as('key'), 'user_id', 'organization_id', 'slug'])
    .where('slug', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('links as other')
          .select('other.id')
          .whereRef('other.id', '<>', 'links.id')
          // Qualified: inside the subquery a bare `slug` would be other's.
          .where(sql<boolean>`${folded(sql.ref('other.slug'))} = ${folded(sql.ref('links.slug'))}`)
          .where(
            sql<boolean>`(other.user_id = links.user_id or other.organization_id = links.organization_id)`,
          ),
      ),
    )
    .orderBy('key')
    .orderBy('slug')
    .execute()
  const byOwnerKey = new Map<string, FoldConflict>()
  for (const row of rows) {
    const id = `${row.user_id ?? ''}|${row.organization_id ?? ''}|${row.key}`
    const conflict = byOwnerKey.get(id) ?? {
      key: row.key,
      slugs: [],
      user_id: row.user_id,
      organization_id: row.organization_id,
    }
    conflict.slugs.push(row.slug!)
    byOwnerKey.set(id, conflict)
  }
  return [...byOwnerKey.values()].slice(0, limit)
}

/**
 * Re-keys every link for the rule: folded, or only lower-cased. The links are locked in id order
 * first, as every writer of several links locks them (db/row-locks.ts).
 */
export async function rekeyLinks(ex: Executor, fold: boolean): Promise<void> {
  await lockRowsInIdOrder(ex, 'links', sql<boolean>`slug is not null`)
  await ex
    .updateTable('links')
    .set({ slug_key: fold ? folded(sql.ref('slug')) : sql<string>`lower(${sql.ref('slug')})` })
    .where('slug', 'is not', null)
    .execute()
  await syncSlugKeys(ex)
}

/**
 * Remembered choices are kept by the old key: those of slugs with a separator would no longer
 * match (and could collide once folded), so they are forgotten; the chooser asks again.
 */
export async function forgetSeparatedPreferences(ex: Executor): Promise<void> {
  await ex
    .deleteFrom('go_preferences')
    .where(sql<boolean>`${folded(sql.ref('slug_key'))} <> ${sql.ref('slug_key')}`)
    .execute()
}

/**
 * The slug rule's lock on PostgreSQL (a transaction-level advisory lock; its number is arbitrary
 * and used for nothing else). Writers of slugs hold it shared, so they never wait on each other; a
 * change of the rule holds it exclusively, so it waits for the writes in flight (and re-keys their
 * links) and the writes after it read the new rule. Without it a link inserted while the rule
 * changed could keep a key under the old rule (under READ COMMITTED the re-keying does not see an
 * uncommitted insert). SQLite runs one write transaction at a time: nothing to do.
 */
const SLUG_RULE_LOCK = 0x5b_60_1d

export async function holdSlugRule(ex: Executor, mode: 'shared' | 'exclusive'): Promise<void> {
  if (!isPostgres(ex)) return
  if (mode === 'shared')
    await sql`select pg_advisory_xact_lock_shared(${SLUG_RULE_LOCK})`.execute(ex)
  else await sql`select pg_advisory_xact_lock(${SLUG_RULE_LOCK})`.execute(ex)
}

export async function readFoldSetting(ex: Executor, key: string): Promise<boolean> {
  const row = await ex
    .selectFrom('settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst()
  if (row === undefined) return false
  return (JSON.parse(row.value) as { fold_separators?: boolean }).fold_separators === true
}
