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

/**
 * True where `expression`, already lower-cased (a stored copy), contains `text` ignoring case:
 * only the pattern is lowered.
 */
export function loweredContains(
  expression: RawBuilder<unknown>,
  text: string,
): RawBuilder<boolean> {
  return sql<boolean>`${expression} like lower(${containing(text)}) escape '\\'`
}

/**
 * The term as one SQLite FTS5 phrase. With the trigram tokenizer its trigrams in a row are the
 * term as a substring of one column, case folded as Unicode folds it — where SQLite's LIKE and
 * lower() fold only ASCII, so that `ärger` finds "Ärger" as PostgreSQL's lower() does.
 */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`
}
