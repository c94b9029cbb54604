/**
 * SCIM Users: `externalId` scoped per SCIM credential, and `name.formatted` kept.
 *
 * - external_id_scope: the credential that set `external_id`. RFC 7643 §3.1 scopes an externalId
 *   to its provisioning domain, so the uniqueness moves from `external_id` alone to the pair
 *   (external_id, external_id_scope): a second identity provider may use an externalId the first
 *   one uses. Rows written before hold null: visible to every credential, as they were.
 * - formatted_name: `name.formatted` when it differs from the account's name (null: the name).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scim_users').addColumn('external_id_scope', 'text').execute()
  await db.schema.alterTable('scim_users').addColumn('formatted_name', 'text').execute()
  await db.schema.dropIndex('scim_users_external_id_key').execute()
  await db.schema
    .createIndex('scim_users_external_id_scope_key')
    .on('scim_users')
    .columns(['external_id', 'external_id_scope'])
    .unique()
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('scim_users_external_id_scope_key').execute()
  await db.schema
    .createIndex('scim_users_external_id_key')
    .on('scim_users')
    .column('external_id')
    .unique()
    .execute()
  await db.schema.alterTable('scim_users').dropColumn('formatted_name').execute()
  await db.schema.alterTable('scim_users').dropColumn('external_id_scope').execute()
}
