/**
 * Newest-first keyset pages over (created_at, id), the order of most collections: the rows after
 * the cursor, `limit + 1` of them (the extra one only tells whether there is a next page).
 */
import { sql, type SelectQueryBuilder } from 'kysely'
import { decodeCursor, DEFAULT_PAGE_SIZE, type CursorKey, type PageQuery } from '../lib/pagination.js'

export interface PageWindow {
  limit: number
  after: CursorKey | null
}

/** The window a collection request asks for; a cursor this service did not issue is a 400. */
export function pageWindow(query: PageQuery): PageWindow {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, after: decodeCursor(query.cursor) }
}

/** Applies the window to a query; `table` qualifies the columns when the query joins others. */
export function newestFirst<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  table?: string,
): SelectQueryBuilder<DB, TB, O> {
  const createdAt = sql.ref(table === undefined ? 'created_at' : `${table}.created_at`)
  const id = sql.ref(table === undefined ? 'id' : `${table}.id`)
  const after = window.after === null ? query : query.where(sql<boolean>`(${createdAt}, ${id}) < (${window.after[0]}, ${window.after[1]})`)
  return after.orderBy(createdAt, 'desc').orderBy(id, 'desc').limit(window.limit + 1)
}
