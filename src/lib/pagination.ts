/**
 * Keyset pagination for every collection (docs/API.md#conventions): the cursor carries the sort key
 * of the last item returned, so pages stay stable while rows are inserted, and each page is one
 * index scan.
 */
import { invalidField } from '../errors.js'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 200

export interface PageQuery {
  limit?: number
  cursor?: string
}

export interface Page<T> {
  items: T[]
  next_cursor: string | null
}

export type CursorKey = [string, string]

export const CURSOR_NOT_ISSUED = 'is not a cursor returned by this endpoint'

const UNISSUABLE =
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url')
}

/** Reads a cursor this service issued; anything else is a 400 on the `cursor` field. */
export function decodeCursor(cursor: string | undefined): CursorKey | null {
  if (cursor === undefined) return null
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    // Parts with control characters or lone surrogates were never issued (and PostgreSQL cannot
    // even compare text holding NUL): refused here rather than failing in the database.
    if (
      Array.isArray(key) &&
      key.length === 2 &&
      key.every((part) => typeof part === 'string' && !UNISSUABLE.test(part))
    ) {
      return key as CursorKey
    }
  } catch {
    // fall through to the validation error
  }
  throw invalidField('cursor', CURSOR_NOT_ISSUED)
}

/**
 * Builds a page from rows fetched with `limit + 1`: the extra row only says whether a next page
 * exists and is not returned.
 */
export function toPage<Row, T>(
  rows: Row[],
  limit: number,
  view: (row: Row) => T,
  keyOf: (row: Row) => CursorKey,
): Page<T> {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return {
    items: items.map(view),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  }
}
