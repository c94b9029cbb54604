/**
 * SQLite: the links' trigram index (`links_fts`) merged back into few b-trees after a large write.
 * FTS5 writes each transaction's terms as a new b-tree (segment) and merges them as they pile up
 * (its `automerge`), which leaves an index of many segments after an import of thousands of links
 * in parts of a thousand — and a search looks each of its trigrams up in every segment. The
 * `merge` command does a bounded piece of that merging: about MERGE_PAGES pages, among the levels
 * holding at least `usermerge` segments (2 for `links_fts`, migration 0116_link_search_merge), so
 * that it ends with one segment per level. Whether it did any work is told by the connection's
 * total_changes(): less than 2 more than before means nothing was left to merge
 * (https://sqlite.org/fts5.html, "The 'merge' Command";
 * docs/decisions/0067-search-index-merged-after-an-import.md). PostgreSQL's pg_trgm indexes need
 * none of it: their pending list is kept short (migration 0065_link_search).
 */
import { sql } from 'kysely'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import { isPostgres } from '../../db/engine.js'

/** Pages written per step: 3–9 ms each on a 100,000-link index (the decision record). */
const MERGE_PAGES = 100

/** One step of the merge; true when it merged something, so that another step may. */
export async function mergeSearchIndexStep(db: Kysely<Database>): Promise<boolean> {
  if (isPostgres(db)) return false
  // One connection throughout, so that total_changes() counts this statement's changes only.
  return db.connection().execute(async (connection) => {
    const changes = async () =>
      (await sql<{ n: number }>`select total_changes() as n`.execute(connection)).rows[0]!.n
    const before = await changes()
    await sql`insert into links_fts (links_fts, rank) values ('merge', ${MERGE_PAGES})`.execute(
      connection,
    )
    return (await changes()) - before >= 2
  })
}
