/**
 * The schema objects the migrations create, to refuse or report any other: a planted trigger (one
 * that makes a person an administrator at her next sign-in, say) acts without an audit event, and
 * a backup carrying one would bring it back on restore. The reference is a fresh in-memory SQLite
 * database migrated to exactly the migrations the database has applied.
 */
import { sql, type Kysely } from 'kysely'
import { createDatabase } from '../../db/client.js'
import { migrations } from '../../migrations/index.js'

/** `trigger promote_on_sign_in`, `index links_slug_key`, …: what sqlite_master lists by name. */
export type SchemaObject = `${string} ${string}`

/** Names that belong to SQLite itself or to the migrator's bookkeeping, never to a migration. */
const OWN_NAME = /^(sqlite_|kysely_)/

/** The objects a fresh database migrated to `applied` (names known to this version) has. */
export async function migratedSchemaObjects(applied: string[]): Promise<Set<SchemaObject>> {
  const handle = createDatabase(
    {
      kind: 'sqlite',
      url: ':memory:',
      sqlitePath: ':memory:',
      poolSize: 1,
      hotReads: 'pool',
      auditCommit: 'grouped',
      readCache: false,
    },
    { warn: () => undefined },
  )
  try {
    const db = handle.db as unknown as Kysely<unknown>
    for (const name of [...applied].sort()) await migrations[name]!.up(db, 'sqlite')
    const rows = await sql<{
      type: string
      name: string
    }>`select type, name from sqlite_master`.execute(handle.db)
    return new Set(rows.rows.filter((row) => !OWN_NAME.test(row.name)).map((row) => objectOf(row)))
  } finally {
    await handle.close()
  }
}

export function objectOf(row: { type: string; name: string }): SchemaObject {
  return `${row.type} ${row.name}`
}

/** The objects of `found` that no migration creates, by their names. */
export function unknownObjects(
  found: Array<{ type: string; name: string }>,
  expected: Set<SchemaObject>,
): SchemaObject[] {
  return found
    .filter((row) => !OWN_NAME.test(row.name))
    .map(objectOf)
    .filter((object) => !expected.has(object))
    .sort()
}
