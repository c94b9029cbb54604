import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // The name lower-cased by the application: names are unique ignoring case, on both engines
    // alike.
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('teams_name_key_key')
    .on('teams')
    .columns(['name_key'])
    .unique()
    .execute()

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('added_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pkey', ['team_id', 'user_id'])
    .execute()
  await db.schema
    .createIndex('team_members_user_idx')
    .on('team_members')
    .columns(['user_id', 'team_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('team_members').execute()
  await db.schema.dropTable('teams').execute()
}
