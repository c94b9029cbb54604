import { sql, type RawBuilder } from 'kysely'

/**
 * The JSON text of setting `key` (null when never set) as a column of another query: how the
 * authentication query reads the policies every request obeys with the credential
 * itself, by the settings table's primary key, instead of a query (or a stale cache) of its own.
 */
export function settingValue(key: string): RawBuilder<string | null> {
  return sql<string | null>`(select value from settings where settings.key = ${key})`
}
