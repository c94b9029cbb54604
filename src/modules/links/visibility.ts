/**
 * Which links a user sees (CONTRACT.md §3.8): their personal links and the links of every
 * organization they belong to. One predicate, used by every query that reads links for a user, so
 * leaving an organization hides its links everywhere at once.
 */
import { sql, type RawBuilder } from 'kysely'

/** True for the `links` row when `user` (an id, or a reference to a user id column) may see it. */
export function visibleTo(user: string | RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref('links.user_id')} = ${user} or exists (select 1 from organization_members where organization_members.organization_id = ${sql.ref('links.organization_id')} and organization_members.user_id = ${user}))`
}
