/**
 * One lock order for writes of many links: every writer that changes or deletes several links, or
 * collections, locks them FOR UPDATE in id order — collections before links when it takes both,
 * as a PUT of a collection's links does (collections/repo.ts lockCollection, then
 * lockLinksOfCollection; links/repo.ts lockLinksInIdOrder). A statement that updates or deletes
 * many rows at once (a re-keying, a deletion's cascade) takes its locks in storage order, which is
 * not id order; two writers taking the same rows in two orders can deadlock on PostgreSQL, which
 * then fails one of them. Locking first, in id order, makes such a writer wait instead.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from './engine.js'
import type { Executor } from './schema.js'

/**
 * PostgreSQL: locks the rows of `table` that `where` selects, FOR UPDATE in id order, until the
 * transaction ends, without reading them back. SQLite serialises writers: nothing to do.
 */
export async function lockRowsInIdOrder(
  ex: Executor,
  table: 'links' | 'collections',
  where: RawBuilder<boolean>,
): Promise<void> {
  if (!isPostgres(ex)) return
  await sql`select count(*) from (select id from ${sql.table(table)} where ${where} order by id for update) as locked`.execute(
    ex,
  )
}
