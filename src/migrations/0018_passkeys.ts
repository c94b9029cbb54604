import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * Passkeys (WebAuthn credentials) and their ceremony challenges.
 *
 * A credential's public key is not a secret, but it is binary (a COSE key): stored as bytes (bytea,
 * blob), not as text. The credential id (base64url) is unique across the instance — the same
 * authenticator credential can never belong to two accounts. `counter` is the authenticator's
 * signature counter (W3C WebAuthn §6.1.1); `backup_eligible` (BE) never changes for a credential
 * and `backed_up` (BS) is refreshed at every use.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  const bytes = engine === 'postgres' ? 'bytea' : 'blob'
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('public_key', bytes, (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('backup_eligible', t.boolean, (c) => c.notNull())
    .addColumn('backed_up', t.boolean, (c) => c.notNull())
    .addColumn('aaguid', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('passkeys_credential_id_key')
    .on('passkeys')
    .column('credential_id')
    .unique()
    .execute()
  await db.schema.createIndex('passkeys_user_idx').on('passkeys').column('user_id').execute()

  // One live challenge per (purpose, binding): the session for a registration, the mfa_token's
  // challenge for the second step, the attempt token's SHA-256 for a sign-in without a password.
  await db.schema
    .createTable('passkey_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('binding', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('passkey_challenges_binding_key')
    .on('passkey_challenges')
    .columns(['purpose', 'binding'])
    .unique()
    .execute()
  await db.schema
    .createIndex('passkey_challenges_expires_idx')
    .on('passkey_challenges')
    .column('expires_at')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['passkey_challenges', 'passkeys']) await db.schema.dropTable(table).execute()
}
