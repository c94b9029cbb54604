/**
 * An OIDC identity is (issuer, subject): a subject is unique only at
 * its issuer, so the issuer the identity was linked under is stored with it and matched at every
 * sign-in. Existing links get their provider's current issuer. And a provider links accounts by
 * email only when an administrator marked its email claims trustworthy (`trust_email`, default
 * off).
 */
import { sql, type Kysely } from 'kysely'
import { columnTypes, type MigrationEngine } from './column-types.js'

export async function up(db: Kysely<unknown>, engine: MigrationEngine): Promise<void> {
  const t = columnTypes(engine)
  await db.schema.alterTable('users').addColumn('oidc_issuer', 'text').execute()
  await sql`update users set oidc_issuer = (select p.issuer_url from oidc_providers p where p.provider_key = users.oidc_provider)
            where oidc_provider is not null`.execute(db)
  await db.schema
    .alterTable('oidc_providers')
    .addColumn('trust_email', t.boolean, (c) => c.notNull().defaultTo(false))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oidc_providers').dropColumn('trust_email').execute()
  await db.schema.alterTable('users').dropColumn('oidc_issuer').execute()
}
