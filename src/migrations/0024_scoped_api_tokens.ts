/**
 * Least-privilege API tokens.
 *
 * - `permissions`: a JSON array of `<area>:read|write` (identity/permissions.ts). NULL marks
 *   a token made before scopes existed: "full access (legacy)", which an administrator can refuse.
 * - `organization_ids`: the organization boundary, a JSON array of organization ids the token may
 *   reach ([] = personal resources only); NULL = all of the owner's organizations.
 * - `last_used_ip`: moved together with last_used_at (at most once a minute).
 *
 * All three are read by the one indexed lookup that authenticates a token; nothing is indexed anew.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('permissions', 'text').execute()
  await db.schema.alterTable('api_tokens').addColumn('organization_ids', 'text').execute()
  await db.schema.alterTable('api_tokens').addColumn('last_used_ip', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_tokens').dropColumn('last_used_ip').execute()
  await db.schema.alterTable('api_tokens').dropColumn('organization_ids').execute()
  await db.schema.alterTable('api_tokens').dropColumn('permissions').execute()
}
