/** Substring search in SQL, the same on both engines. */
import { sql, type RawBuilder } from 'kysely'

/** `%text%` for LIKE, with LIKE's own wildcards (and the escape character) taken literally. */
export function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * True where any of the (qualified) columns contains `text`, ignoring case — lower() on both sides:
 * PostgreSQL's LIKE is case-sensitive, and SQLite's folds only ASCII anyway. A NULL column simply
 * does not match.
 */
export function anyContains(columns: readonly string[], text: string): RawBuilder<boolean> {
  return anyLike(columns, containing(text))
}

/** anyContains with the LIKE pattern made already (`containing`), or a value bound later. */
export function anyLike(columns: readonly string[], pattern: string): RawBuilder<boolean> {
  const matches = columns.map(
    (column) => sql`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`,
  )
  return sql<boolean>`(${sql.join(matches, sql` or `)})`
}
