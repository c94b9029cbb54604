import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

/**
 * Link suggestions: the model's answers cached per person for 7 days (`cache_key` is a digest of
 * the scope, the canonical URL and the language; `answer` the validated answer as JSON), and the
 * model calls each person made per UTC hour, reserved before each call.
 */
export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('link_suggestion_cache')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('cache_key', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_suggestion_cache_pkey', ['user_id', 'cache_key'])
    .execute()
  // The sweep deletes expired answers across all people.
  await db.schema
    .createIndex('link_suggestion_cache_expires_idx')
    .on('link_suggestion_cache')
    .column('expires_at')
    .execute()
  await db.schema
    .createTable('link_suggestion_calls')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The UTC hour, YYYY-MM-DDTHH: text sorts and compares the same on both engines.
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_suggestion_calls_pkey', ['user_id', 'hour'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_suggestion_calls').execute()
  await db.schema.dropTable('link_suggestion_cache').execute()
}
