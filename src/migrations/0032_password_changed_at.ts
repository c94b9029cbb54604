/**
 * The Security page says when the password was last set, as GitHub's and Keycloak's
 * account pages do. Every write of `password_hash` writes this column with it (users/repo.ts
 * `passwordColumns`). Existing rows keep NULL — shown as "set" without a date: the account's
 * creation time is not honest for them, since a password changed since then left no timestamp.
 */
import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema.alterTable('users').addColumn('password_changed_at', t.timestamp).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('password_changed_at').execute()
}
