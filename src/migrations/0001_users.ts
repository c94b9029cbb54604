import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('user_key', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('is_admin', t.boolean, (c) => c.notNull().defaultTo(false))
    .addColumn('disabled', t.boolean, (c) => c.notNull().defaultTo(false))
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .addColumn('theme', 'text', (c) => c.notNull().defaultTo('auto'))
    .addColumn('ai_suggestions_enabled', t.boolean, (c) => c.notNull().defaultTo(true))
    .addColumn('email_pending', 'text')
    .addColumn('oidc_provider', 'text')
    .addColumn('oidc_sub', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_login_at', t.timestamp)
    .execute()
  // Emails are stored lower-cased, so a plain unique index is case-insensitive in effect.
  await db.schema.createIndex('users_email_key').on('users').column('email').unique().execute()
  await db.schema
    .createIndex('users_user_key_key')
    .on('users')
    .column('user_key')
    .unique()
    .execute()
  await db.schema
    .createIndex('users_oidc_identity_key')
    .on('users')
    .columns(['oidc_provider', 'oidc_sub'])
    .unique()
    .where('oidc_sub', 'is not', null)
    .execute()
  await db.schema
    .createIndex('users_created_at_idx')
    .on('users')
    .columns(['created_at', 'id'])
    .execute()

  await db.schema
    .createTable('instance_flags')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('set_at', t.timestamp, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('instance_flags').execute()
  await db.schema.dropTable('users').execute()
}
