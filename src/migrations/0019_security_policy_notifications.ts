/**
 * The two-factor policy, security notifications and the personal security
 * log.
 *
 * - audit_events gains `subject_user_id` (whose account the event concerns: the target user, else
 *   the actor) and `user_agent`, with an index on (subject_user_id, at, id): the personal security
 *   log is one index range of the audit trail. Existing rows get their subject by the same rule.
 * - sessions gain `idp_mfa`: the identity provider said (amr) that it checked a second factor, and
 *   the provider is trusted to say so (`oidc_providers.trusts_mfa_amr`).
 * - users gain `notify_new_sign_in` (the one notification a person may switch off).
 * - known_devices: per account, a hash of the browser and system class of each sign-in seen.
 * - mail_outbox: notifications queued in the transaction of the change, sent in the background.
 */
import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema.alterTable('audit_events').addColumn('subject_user_id', 'text').execute()
  await db.schema.alterTable('audit_events').addColumn('user_agent', 'text').execute()
  await sql`update audit_events set subject_user_id = case when target_type = 'user' then target_id else actor_id end`.execute(
    db,
  )
  await db.schema
    .createIndex('audit_events_subject_idx')
    .on('audit_events')
    .columns(['subject_user_id', 'at', 'id'])
    .execute()

  await db.schema
    .alterTable('sessions')
    .addColumn('idp_mfa', t.boolean, (c) => c.notNull().defaultTo(false))
    .execute()
  await db.schema
    .alterTable('oidc_providers')
    .addColumn('trusts_mfa_amr', t.boolean, (c) => c.notNull().defaultTo(false))
    .execute()
  await db.schema
    .alterTable('users')
    .addColumn('notify_new_sign_in', t.boolean, (c) => c.notNull().defaultTo(true))
    .execute()

  await db.schema
    .createTable('known_devices')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device_hash', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('known_devices_pk', ['user_id', 'device_hash'])
    .execute()

  // No foreign key: a notice about an account's deletion-adjacent change may outlive it briefly.
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text')
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('next_attempt_at', t.timestamp, (c) => c.notNull())
    .addColumn('finished_at', t.timestamp)
    .addColumn('last_error', 'text')
    .execute()
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute()
  await db.schema.dropTable('known_devices').execute()
  await db.schema.alterTable('users').dropColumn('notify_new_sign_in').execute()
  await db.schema.alterTable('oidc_providers').dropColumn('trusts_mfa_amr').execute()
  await db.schema.alterTable('sessions').dropColumn('idp_mfa').execute()
  await db.schema.dropIndex('audit_events_subject_idx').execute()
  await db.schema.alterTable('audit_events').dropColumn('user_agent').execute()
  await db.schema.alterTable('audit_events').dropColumn('subject_user_id').execute()
}
