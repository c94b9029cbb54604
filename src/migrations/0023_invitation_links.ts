/**
 * An invitation's link can be copied by the organization's owners and admins
 * on an instance without mail, so the token is kept — encrypted with the instance's ENCRYPTION_KEY
 * (AES-256-GCM, bound to the invitation's id) — beside its SHA-256, which stays the only thing a
 * link is looked up by. Invitations made before have no copy (null): a resend gives them one.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organization_invitations')
    .addColumn('token_encrypted', 'text')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organization_invitations').dropColumn('token_encrypted').execute()
}
