/**
 * SCIM 2.0 provisioning.
 *
 * - scim_credentials: the bearer tokens identity providers use under /scim/v2 — stored as SHA-256
 *   only (the unique index is the per-request lookup), with a name, a last-used time and a
 *   revocation time.
 * - scim_users: what SCIM says about an account beyond the users table — userName (unique ignoring
 *   case, through its lower-cased copy), externalId (unique), the name parts and the enterprise
 *   extension's employeeNumber, department and manager. Deleted with the account.
 */
import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('scim_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('last_used_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('scim_credentials_token_hash_key')
    .on('scim_credentials')
    .column('token_hash')
    .unique()
    .execute()

  await db.schema
    .createTable('scim_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('user_name_lower', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('given_name', 'text')
    .addColumn('family_name', 'text')
    .addColumn('employee_number', 'text')
    .addColumn('department', 'text')
    .addColumn('manager_id', 'text')
    .execute()
  await db.schema
    .createIndex('scim_users_user_name_key')
    .on('scim_users')
    .column('user_name_lower')
    .unique()
    .execute()
  await db.schema
    .createIndex('scim_users_external_id_key')
    .on('scim_users')
    .column('external_id')
    .unique()
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scim_users').execute()
  await db.schema.dropTable('scim_credentials').execute()
}
