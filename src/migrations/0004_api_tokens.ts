import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    // SHA-256 of the whole secret: the lookup key of every token-authenticated request.
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .addColumn('expires_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('api_tokens_token_hash_key')
    .on('api_tokens')
    .column('token_hash')
    .unique()
    .execute()
  await db.schema
    .createIndex('api_tokens_user_idx')
    .on('api_tokens')
    .columns(['user_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_tokens').execute()
}
