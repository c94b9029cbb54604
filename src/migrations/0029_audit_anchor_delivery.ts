import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * The daily anchoring is claimed per channel and kept only when it was delivered —
 * `anchored_at` (already there) for the mail to the administrators, `anchor_posted_at` for the
 * webhook — so a day whose mail could not go out (no SMTP yet) is tried again within the day.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  await db.schema
    .alterTable('audit_monitor')
    .addColumn('anchor_posted_at', columnTypes(engine).timestamp)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_monitor').dropColumn('anchor_posted_at').execute()
}
