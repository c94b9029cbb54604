/**
 * Keyset pages over (sort column, id): the rows after the cursor, `limit + 1` of them (the extra
 * one only tells whether there is a next page). The id breaks ties, so the order is total and a
 * page never repeats or skips a row while others are inserted.
 */
import { sql, type SelectQueryBuilder } from 'kysely'
import { invalidField } from '../errors.js'
import {
  CURSOR_NOT_ISSUED,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  type CursorKey,
  type PageQuery,
} from '../lib/pagination.js'

export interface PageWindow {
  limit: number
  after: CursorKey | null
}

/** The window a collection request asks for; a cursor this service did not issue is a 400. */
export function pageWindow(query: PageQuery): PageWindow {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, after: decodeCursor(query.cursor) }
}

export interface KeysetOrder {
  /** The sort column; `id` of the same table breaks ties. */
  column: string
  /** Qualifies both columns when the query joins other tables. */
  table?: string
  direction: 'asc' | 'desc'
  /** Compares the column lower-cased, so "alpha" and "Beta" sort as a reader expects. */
  ignoreCase?: boolean
}

/**
 * Applies the window to a query in the given order; the cursor carries the last row's (column, id).
 */
export function keyset<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  order: KeysetOrder,
): SelectQueryBuilder<DB, TB, O> {
  const qualify = (column: string) =>
    sql.ref(order.table === undefined ? column : `${order.table}.${column}`)
  // The cast gives PostgreSQL a type for the bound value, which lower() needs to pick its overload.
  const fold = (value: unknown) =>
    order.ignoreCase ? sql`lower(cast(${value} as text))` : sql`${value}`
  const key = fold(qualify(order.column))
  const id = qualify('id')
  const comparison = order.direction === 'desc' ? sql.raw('<') : sql.raw('>')
  const after =
    window.after === null
      ? query
      : query.where(
          sql<boolean>`(${key}, ${id}) ${comparison} (${fold(window.after[0])}, ${window.after[1]})`,
        )
  // The limit is written into the statement: a statement prepared once per page size is then
  // planned for its limit (PostgreSQL plans `limit $n` as a tenth of the rows).
  return after
    .orderBy(key, order.direction)
    .orderBy(id, order.direction)
    .limit(sql.lit(window.limit + 1))
}

/** A timestamp as this service stores and issues them (toISOString, from 1970 on). */
const ISSUED_TIMESTAMP = /^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A cursor of a newest-first page carries a time this service issued: a 400 otherwise. */
export function assertIssuedCursor(window: PageWindow): void {
  // A forged time would reach PostgreSQL as an invalid timestamptz: a 400, not a database error.
  const time = window.after?.[0]
  if (time !== undefined && !(ISSUED_TIMESTAMP.test(time) && new Date(time).toISOString() === time))
    throw invalidField('cursor', CURSOR_NOT_ISSUED)
}

/** Newest first over (created_at, id) — the order of most collections — or another time column. */
export function newestFirst<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  table?: string,
  column = 'created_at',
): SelectQueryBuilder<DB, TB, O> {
  assertIssuedCursor(window)
  return keyset(query, window, { column, ...(table !== undefined && { table }), direction: 'desc' })
}

/**
 * Alphabetical, ignoring case, over (name, id): the order of named things
 * (docs/API.md#organizations-and-invitations, #teams).
 */
export function byName<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  table: string,
  column = 'name',
): SelectQueryBuilder<DB, TB, O> {
  return keyset(query, window, { column, table, direction: 'asc', ignoreCase: true })
}
