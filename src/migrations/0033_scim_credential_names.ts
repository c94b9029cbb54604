/**
 * One live SCIM credential per name. The name is how an administrator (and the audit
 * log's actor "SCIM (<name>)", and the request log) tells credentials apart; a create form sent
 * twice at once made two live credentials of one name, the first of whose secrets nobody ever
 * stored. A unique index over the names of credentials not revoked holds it under concurrency
 * (credentials.service.ts answers 409); a revoked credential's name is free again.
 *
 * Live credentials that already share a name keep working: all but the oldest get " (2)", " (3)", …
 * appended (to a name still free), so the index can be built without revoking a provider's token.
 */
import { sql, type Kysely } from 'kysely'

interface Row {
  id: string
  name: string
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const live = (
    await sql<Row>`select id, name from scim_credentials where revoked_at is null order by created_at, id`.execute(
      db,
    )
  ).rows
  const taken = new Set(live.map((row) => row.name))
  const seen = new Set<string>()
  for (const row of live) {
    if (!seen.has(row.name)) {
      seen.add(row.name)
      continue
    }
    let n = 2
    while (taken.has(`${row.name} (${n})`)) n++
    const name = `${row.name} (${n})`
    taken.add(name)
    seen.add(name)
    await sql`update scim_credentials set name = ${name} where id = ${row.id}`.execute(db)
  }
  await db.schema
    .createIndex('scim_credentials_live_name_key')
    .on('scim_credentials')
    .column('name')
    .unique()
    .where(sql.ref('revoked_at'), 'is', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('scim_credentials_live_name_key').execute()
}
