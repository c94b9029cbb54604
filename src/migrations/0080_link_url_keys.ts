/**
 * Duplicate hints: each link keeps the key of its URL (src/lib/url-key.ts), indexed, so "which
 * links I can see point at this page" is one index probe however many links there are. Existing
 * rows get their key here, in batches.
 */
import { sql, type Kysely } from 'kysely'

/**
 * The key as src/lib/url-key.ts computed it when this migration was written, frozen here: a
 * migration that has shipped must not change with the application's code.
 */
const TEMPLATE = /\{(?:path|query|[0-9]+)(?:[^{}]*)\}/i
export function urlKeyAtMigration(url: string): string {
  if (TEMPLATE.test(url)) return url
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  const kept = [...parsed.searchParams].filter(([name]) => !/^utm_/i.test(name))
  const query = kept.length === 0 ? '' : `?${new URLSearchParams(kept).toString()}`
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}${query}`
}

const BATCH = 500

/** Writes the key of every link that has none (exported for its test). */
export async function fillKeys(db: Kysely<unknown>, table: 'links'): Promise<void> {
  for (;;) {
    const rows = (
      await sql<{ id: string; url: string }>`
        select id, url from ${sql.table(table)} where url_key is null order by id limit ${BATCH}`.execute(
        db,
      )
    ).rows
    if (rows.length === 0) return
    const values = sql.join(rows.map((row) => sql`(${row.id}, ${urlKeyAtMigration(row.url)})`))
    await sql`
      with keyed(id, url_key) as (values ${values})
      update ${sql.table(table)}
      set url_key = (select keyed.url_key from keyed where keyed.id = ${sql.table(table)}.id)
      where id in (select keyed.id from keyed)`.execute(db)
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').addColumn('url_key', 'text').execute()
  await fillKeys(db, 'links')
  await db.schema.createIndex('links_url_key_idx').on('links').column('url_key').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_url_key_idx').execute()
  await db.schema.alterTable('links').dropColumn('url_key').execute()
}
