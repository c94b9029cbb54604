import type { Kysely } from 'kysely'

/**
 * A non-secret selector per backup code (its first two characters), so a backup-code attempt is
 * checked against one hash instead of every unused code of the account. Codes
 * made before this migration have none and are still checked one by one until the set is renewed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mfa_backup_codes').addColumn('selector', 'text').execute()
  await db.schema
    .createIndex('mfa_backup_codes_selector_idx')
    .on('mfa_backup_codes')
    .columns(['user_id', 'selector'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mfa_backup_codes_selector_idx').execute()
  await db.schema.alterTable('mfa_backup_codes').dropColumn('selector').execute()
}
