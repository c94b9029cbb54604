/**
 * The SCIM request log names what a 409 uniqueness collided on: `scim_requests.subject`, the
 * userName (Users) or displayName (Groups) from the refused request, so an administrator can tell
 * which person or group the identity provider could not create. Null on every other row. At most
 * 256 characters (the service shortens longer values), held by a check on both engines.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('scim_requests')
    .addColumn('subject', 'text', (c) => c.check(sql`length(subject) <= 256`))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scim_requests').dropColumn('subject').execute()
}
