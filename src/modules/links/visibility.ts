/**
 * Which links a user sees (docs/API.md#links): their personal links, the links of every
 * organization they belong to, the links shared with a team they are in, and the links of each
 * collection shared with such a team. visibleTo is that rule as one predicate, used by every query
 * that reads links for a user, so leaving an organization or a team hides its links everywhere at
 * once (memberships are read by each statement, never remembered between requests).
 *
 * forwardingWithSlugKey states the same rule as index probes, for the reads by slug (the go
 * redirect, its chooser, the details page): as a filter, visibleTo's OR over owner and membership
 * leaves no index that finds a slug key, so both engines would read every link with that key,
 * everyone's (docs/decisions/0012-go-redirect-one-statement.md). A team's links are found by
 * (team, slug key) in link_teams and collection_links, which repeat each link's key for that.
 * visibleToIndexed states it a third time, for lists (GET /api/links): as an OR of indexable terms.
 * visibility.test.ts holds the three to the same answer.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'

/** The ids of the links shared with one of the user's teams, directly or by a collection. */
export function teamLinkIds(user: string | RawBuilder<unknown>) {
  return sql`select link_teams.link_id from team_members inner join link_teams on link_teams.team_id = team_members.team_id where team_members.user_id = ${user} union all select collection_links.link_id from team_members inner join collection_teams on collection_teams.team_id = team_members.team_id inner join collection_links on collection_links.collection_id = collection_teams.collection_id where team_members.user_id = ${user}`
}

/**
 * True for the `links` row when `user` (an id, or a reference to a user id column) may see it.
 * Under NOT, coalesce it: for an organization's link and someone outside it, it is NULL.
 */
export function visibleTo(user: string | RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref('links.user_id')} = ${user} or exists (select 1 from organization_members where organization_members.organization_id = ${sql.ref('links.organization_id')} and organization_members.user_id = ${user}) or ${sql.ref('links.id')} in (${teamLinkIds(user)}))`
}

/**
 * True for a link the user sees through a team only by being in it (GET /api/links?scope=shared):
 * shared with one of their teams, directly or by a collection.
 */
export function sharedWithTeamsOf(ex: Executor, userId: string): RawBuilder<boolean> {
  return isPostgres(ex)
    ? sql<boolean>`${sql.ref('links.id')} = any(array(${teamLinkIds(userId)}))`
    : sql<boolean>`${sql.ref('links.id')} in (${teamLinkIds(userId)})`
}

// A literal, not a parameter: the same in every statement, nothing to bind on each redirect.
const FORWARDING = sql.lit(true)

/**
 * The forwarding links with this slug key that the user sees (id, url, organization), as a query
 * to use as a derived table or an `in` list, each link once: the personal one by (user_id,
 * slug_key), each organization's by the user's memberships and then (organization_id, slug_key),
 * each team's by the user's teams and then (team_id, slug_key) — shared directly, or through a
 * collection by (collection_id, slug_key).
 */
export function forwardingWithSlugKey(ex: Executor, userId: string, slugKey: string) {
  // union, not union all: a link seen two ways (one's own, shared with one's team) counts once.
  return ownForwardingWithSlugKey(ex, userId, slugKey).union(teamShares(ex, userId, slugKey))
}

/**
 * forwardingWithSlugKey for a user in no team: the personal link and the organizations' — each
 * link once without a union's sorting, as a link has either an owner or an organization.
 */
export function ownForwardingWithSlugKey(ex: Executor, userId: string, slugKey: string) {
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

/** True when the user is in at least one team (one index probe of team_members). */
export function inSomeTeam(userId: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from team_members where team_members.user_id = ${userId})`
}

/**
 * forwardingWithSlugKey's links shared with one of the user's teams. On PostgreSQL one probe of the
 * user's teams, and per team its direct shares and its collections' links with the key side by
 * side (a lateral join): a generic plan sets up every node of the statement on each run, whether
 * the person has teams or not, and this form has the fewest
 * (docs/decisions/0043-go-team-shares-only-for-team-members.md). SQLite has no lateral join: a
 * branch per way of sharing there.
 */
function teamShares(ex: Executor, userId: string, slugKey: string) {
  if (isPostgres(ex))
    return ex
      .selectFrom('team_members')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('link_teams')
            .select('link_teams.link_id')
            .whereRef('link_teams.team_id', '=', 'team_members.team_id')
            .where('link_teams.slug_key', '=', slugKey)
            .unionAll(
              eb
                .selectFrom('collection_teams')
                .innerJoin('collection_links', (join) =>
                  join
                    .onRef('collection_links.collection_id', '=', 'collection_teams.collection_id')
                    .on('collection_links.slug_key', '=', slugKey),
                )
                .select('collection_links.link_id')
                .whereRef('collection_teams.team_id', '=', 'team_members.team_id'),
            )
            .as('shares'),
        (join) => join.onTrue(),
      )
      .innerJoin('links', 'links.id', 'shares.link_id')
      .select(['links.id', 'links.url', 'links.organization_id'])
      .where('team_members.user_id', '=', userId)
      .where('links.forwarding_enabled', '=', FORWARDING)
  const teams = ex
    .selectFrom('team_members')
    .innerJoin('link_teams', (join) =>
      join
        .onRef('link_teams.team_id', '=', 'team_members.team_id')
        .on('link_teams.slug_key', '=', slugKey),
    )
    .innerJoin('links', 'links.id', 'link_teams.link_id')
    .select(['links.id', 'links.url', 'links.organization_id'])
    .where('team_members.user_id', '=', userId)
    .where('links.forwarding_enabled', '=', FORWARDING)
  const collections = ex
    .selectFrom('team_members')
    .innerJoin('collection_teams', 'collection_teams.team_id', 'team_members.team_id')
    .innerJoin('collection_links', (join) =>
      join
        .onRef('collection_links.collection_id', '=', 'collection_teams.collection_id')
        .on('collection_links.slug_key', '=', slugKey),
    )
    .innerJoin('links', 'links.id', 'collection_links.link_id')
    .select(['links.id', 'links.url', 'links.organization_id'])
    .where('team_members.user_id', '=', userId)
    .where('links.forwarding_enabled', '=', FORWARDING)
  return teams.union(collections)
}

/** Where a row names a link's id and owner: `links` itself, or the search table's copies. */
export interface LinkColumns {
  id: string
  userId: string
  organizationId: string
}

export const LINK_COLUMNS: LinkColumns = {
  id: 'links.id',
  userId: 'links.user_id',
  organizationId: 'links.organization_id',
}

/** The ids of the organizations the user belongs to, as a subquery. */
export function organizationIdsOf(userId: string): RawBuilder<unknown> {
  return sql`select organization_members.organization_id from organization_members where organization_members.user_id = ${userId}`
}

/**
 * visibleTo for a WHERE clause of a list, in a form both planners answer from the owners' indexes —
 * the person's links by user_id, their organizations' by organization_id, their teams' by id
 * (PostgreSQL: a BitmapOr; SQLite: a multi-index OR) — where visibleTo's EXISTS leaves a scan of
 * every link (GET /api/links with 200,000 other links on PostgreSQL: 70 ms a page, 0.1 ms so).
 * Only for WHERE, never under NOT: for a link of no organization of the person's it is NULL, not
 * false. `row` names the columns it reads (the search table holds copies of a link's).
 */
export function visibleToIndexed(
  ex: Executor,
  userId: string,
  row: LinkColumns = LINK_COLUMNS,
): RawBuilder<boolean> {
  const memberships = organizationIdsOf(userId)
  const [user, organization, id] = [
    sql.ref(row.userId),
    sql.ref(row.organizationId),
    sql.ref(row.id),
  ]
  // PostgreSQL cannot use an index for IN (subquery) inside an OR; for = ANY(array) it can.
  return isPostgres(ex)
    ? sql<boolean>`(${user} = ${userId} or ${organization} = any(array(${memberships})) or ${id} = any(array(${teamLinkIds(userId)})))`
    : sql<boolean>`(${user} = ${userId} or ${organization} in (${memberships}) or ${id} in (${teamLinkIds(userId)}))`
}

/**
 * True for the `collections` row when the user may see it: theirs, their organization's, or
 * shared with one of their teams.
 */
export function collectionVisibleTo(userId: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref('collections.user_id')} = ${userId} or exists (select 1 from organization_members where organization_members.organization_id = ${sql.ref('collections.organization_id')} and organization_members.user_id = ${userId}) or exists (select 1 from collection_teams inner join team_members on team_members.team_id = collection_teams.team_id where collection_teams.collection_id = ${sql.ref('collections.id')} and team_members.user_id = ${userId}))`
}
