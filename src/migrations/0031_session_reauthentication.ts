/**
 * The re-authentication window ("sudo mode"). A session records when its holder last
 * proved who they are — at the sign-in that opened it, or later through POST
 * /api/auth/reauthenticate — and sensitive account changes are let through without asking again
 * for 10 minutes after that. Existing sessions get none: their holders prove it at the next change.
 * A session also records how it was signed in (`sign_in_method`, as its auth.login event says), so
 * the list of signed-in devices can show it; existing sessions have none.
 */
import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema.alterTable('sessions').addColumn('reauthenticated_at', t.timestamp).execute()
  await db.schema.alterTable('sessions').addColumn('sign_in_method', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('sign_in_method').execute()
  await db.schema.alterTable('sessions').dropColumn('reauthenticated_at').execute()
}
