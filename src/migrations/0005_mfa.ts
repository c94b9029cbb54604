import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  // The active TOTP factor: one per user. The secret is AES-256-GCM ciphertext; last_used_step is
  // the RFC 6238 time step of the last accepted code (replay protection).
  await db.schema
    .createTable('mfa_totp')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('enabled_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_step', 'bigint')
    .execute()

  await db.schema
    .createTable('mfa_pending')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('mfa_backup_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('mfa_backup_codes_user_idx')
    .on('mfa_backup_codes')
    .column('user_id')
    .execute()

  // The second step of a sign-in: the mfa_token is stored as its SHA-256 only.
  await db.schema
    .createTable('mfa_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('mfa_challenges_token_hash_key')
    .on('mfa_challenges')
    .column('token_hash')
    .unique()
    .execute()
  await db.schema
    .createIndex('mfa_challenges_user_idx')
    .on('mfa_challenges')
    .column('user_id')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['mfa_challenges', 'mfa_backup_codes', 'mfa_pending', 'mfa_totp'])
    await db.schema.dropTable(table).execute()
}
