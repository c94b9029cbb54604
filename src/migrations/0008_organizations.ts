import type { Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
    // Set by billing when the organization first checks out (docs/API.md#billing).
    .addColumn('stripe_customer_id', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  // Slugs are lower-case by their pattern, so a plain unique index is enough.
  await db.schema
    .createIndex('organizations_slug_key')
    .on('organizations')
    .column('slug')
    .unique()
    .execute()
  await db.schema
    .createIndex('organizations_stripe_customer_key')
    .on('organizations')
    .column('stripe_customer_id')
    .unique()
    .where('stripe_customer_id', 'is not', null)
    .execute()

  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('joined_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_members_pkey', ['organization_id', 'user_id'])
    .execute()
  await db.schema
    .createIndex('organization_members_user_idx')
    .on('organization_members')
    .columns(['user_id', 'organization_id'])
    .execute()

  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    // SHA-256 of the 256-bit token mailed to the invitee; the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('accepted_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('organization_invitations_token_hash_key')
    .on('organization_invitations')
    .column('token_hash')
    .unique()
    .execute()
  await db.schema
    .createIndex('organization_invitations_org_idx')
    .on('organization_invitations')
    .columns(['organization_id', 'created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_invitations').execute()
  await db.schema.dropTable('organization_members').execute()
  await db.schema.dropTable('organizations').execute()
}
