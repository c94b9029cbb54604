import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema
    .createTable('oidc_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Listed in key order: byte-wise on both engines ("C" collation), so pages and cursors agree.
    .addColumn('provider_key', 'text', (c) =>
      (engine === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull(),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('issuer_url', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // AES-256-GCM (lib/crypto.ts) bound to the row's id; null for a public client (PKCE only).
    .addColumn('client_secret_encrypted', 'text')
    // Space-separated, as OAuth 2.0 sends them (RFC 6749 §3.3); always includes `openid`.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('auto_create_users', t.boolean, (c) => c.notNull().defaultTo(false))
    .addColumn('default_role', 'text', (c) => c.notNull().defaultTo('user'))
    .addColumn('enabled', t.boolean, (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('oidc_providers_default_role_check', sql`default_role in ('user', 'admin')`)
    .execute()
  await db.schema
    .createIndex('oidc_providers_provider_key_key')
    .on('oidc_providers')
    .column('provider_key')
    .unique()
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oidc_providers').execute()
}
