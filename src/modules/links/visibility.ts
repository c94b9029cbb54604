/**
 * Which links a user sees (docs/API.md#links-and-go-links): their personal links and the links of
 * every organization they belong to. visibleTo is that rule as one predicate, used by every query
 * that reads links for a user, so leaving an organization hides its links everywhere at once.
 *
 * forwardingWithSlugKey states the same rule as two index probes, for the reads by slug (the go
 * redirect, its chooser, the details page): as a filter, visibleTo's OR over owner and membership
 * leaves no index that finds a slug key, so both engines read every link with that key, everyone's
 * (≈ 2 ms per redirect on PostgreSQL with 2,000 people having a go/wiki, and a scan of the table on
 * SQLite). visibleToIndexed states it a third time, for lists (GET /api/links): as an OR of two
 * indexable terms. visibility.test.ts holds the three to the same answer.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'

/** True for the `links` row when `user` (an id, or a reference to a user id column) may see it. */
export function visibleTo(user: string | RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref('links.user_id')} = ${user} or exists (select 1 from organization_members where organization_members.organization_id = ${sql.ref('links.organization_id')} and organization_members.user_id = ${user}))`
}

// A literal, not a parameter: the same in every statement, nothing to bind on each redirect.
const FORWARDING = sql.lit(true)

/**
 * The forwarding links with this slug key that the user sees (id, url, organization), as a query
 * to use as a derived table or an `in` list: the personal one by (user_id, slug_key), and each
 * organization's by the user's memberships and then (organization_id, slug_key).
 */
export function forwardingWithSlugKey(ex: Executor, userId: string, slugKey: string) {
  const personal = ex
    .selectFrom('links')
    .select(['links.id', 'links.url', 'links.organization_id'])
    .where('links.user_id', '=', userId)
    .where('links.slug_key', '=', slugKey)
    .where('links.forwarding_enabled', '=', FORWARDING)
  const shared = ex
    .selectFrom('organization_members')
    .innerJoin('links', (join) =>
      join
        .onRef('links.organization_id', '=', 'organization_members.organization_id')
        .on('links.slug_key', '=', slugKey),
    )
    .select(['links.id', 'links.url', 'links.organization_id'])
    .where('organization_members.user_id', '=', userId)
    .where('links.forwarding_enabled', '=', FORWARDING)
  return personal.unionAll(shared)
}

/**
 * visibleTo for a WHERE clause of a list, in a form both planners answer from the owners' indexes —
 * the person's links by user_id, their organizations' by organization_id (PostgreSQL: a BitmapOr;
 * SQLite: a multi-index OR) — where visibleTo's EXISTS leaves a scan of every link (GET /api/links
 * with 200,000 other links on PostgreSQL: 70 ms a page, 0.1 ms so). Only for WHERE, never under
 * NOT: for a link of no organization of the person's it is NULL, not false.
 */
export function visibleToIndexed(ex: Executor, userId: string): RawBuilder<boolean> {
  const memberships = sql`select organization_members.organization_id from organization_members where organization_members.user_id = ${userId}`
  // PostgreSQL cannot use an index for IN (subquery) inside an OR; for = ANY(array) it can.
  return isPostgres(ex)
    ? sql<boolean>`(${sql.ref('links.user_id')} = ${userId} or ${sql.ref('links.organization_id')} = any(array(${memberships})))`
    : sql<boolean>`(${sql.ref('links.user_id')} = ${userId} or ${sql.ref('links.organization_id')} in (${memberships}))`
}
