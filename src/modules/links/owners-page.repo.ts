/**
 * A page of the links a person sees, newest first, read owner by owner: each owner's newest links
 * from its (owner, created_at, id) index, so that a page costs the same with 40 links or 40,000
 * (docs/decisions/0036-links-list-at-scale.md). The Links screen's pages without a search, and the
 * walk of a search through the newest links (search-walk.repo.ts), read through it.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'
import { assertIssuedCursor, keyset, type PageWindow } from '../../db/keyset.js'
import { compiledOnce } from '../../db/precompiled.js'
import type { LinkFilters } from './link-filters.js'
import { teamLinkIds } from './visibility.js'
import { linksAsSeenBy, type VisibleRow } from './visible.repo.js'

/** Above this many organizations a page reads the owners' indexes together (visibleToIndexed). */
const MAX_PAGE_BRANCHES = 50

export interface PageOwners {
  userId: string
  /** The user's own links are on the page (not for `owner: organization` nor another filter). */
  personal: boolean
  organizationIds: string[]
  /** The links shared with the user's teams, directly or by a collection, are on the page. */
  teams: boolean
}

const selectOneTeam = compiledOnce(['userId'], (ex, p) =>
  ex.selectFrom('team_members').select('team_id').where('user_id', '=', p.userId).limit(1),
)
const selectOrganizationIds = compiledOnce(['userId'], (ex, p) =>
  ex.selectFrom('organization_members').select('organization_id').where('user_id', '=', p.userId),
)

/**
 * Whose links a page newest first may hold (without a tag, a team scope or a collection): the
 * user, and the organizations they belong to that the filters keep, and, without a filter on the
 * owner, the links shared with their teams; null when they belong to too many organizations to
 * read one by one, or to a team and an API token's boundary applies.
 */
export async function pageOwners(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
): Promise<PageOwners | null> {
  // A filter on the owner keeps the user's own links or their organizations', never the links
  // shared with their teams (ownerConditions).
  const ownerFiltered = filters.owner !== undefined || filters.organizationId !== undefined
  const teams = !ownerFiltered && (await selectOneTeam(ex, { userId })).length > 0
  // A token's boundary would have to be checked on each shared link: such a page reads the
  // visible links together.
  if (teams && filters.reachable !== undefined) return null
  const rows = await selectOrganizationIds(ex, { userId })
  const organizationIds = rows
    .map((row) => row.organization_id)
    .filter(
      (id) =>
        filters.owner !== 'personal' &&
        (filters.organizationId === undefined || filters.organizationId === id) &&
        (filters.reachable === undefined || filters.reachable.has(id)),
    )
  if (organizationIds.length > MAX_PAGE_BRANCHES) return null
  const personal = filters.owner !== 'organization' && filters.organizationId === undefined
  return { userId, personal, organizationIds, teams }
}

/**
 * Newest first over the links' (created_at, id), as newestFirst, for a statement compiled once
 * with placeholders for the cursor: the caller checked the request's cursor itself.
 */
function byCreation<Q extends Parameters<typeof keyset>[0]>(query: Q, window: PageWindow): Q {
  return keyset(query, window, { column: 'created_at', table: 'links', direction: 'desc' }) as Q
}

/**
 * The ids of the page's links: each owner's newest `limit + 1` after the cursor, read in order
 * from its (owner, created_at, id) index — so a page costs the same with 40 links or 40,000
 * (docs/decisions/0036-links-list-at-scale.md) — and of those, the newest `limit + 1`, chosen by
 * the index's own columns, so that only the page's links are read, whatever the number of owners.
 * An organization's branch checks the membership again, in the same statement: one left a moment
 * ago does not show. For someone in a team, the links shared with their teams are one more branch:
 * it reads each of those links, so it grows with what the teams share, not with all the links.
 * With a `filter`, each branch keeps only the links that pass it.
 */
function newestOfOwners(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  filter?: RawBuilder<boolean>,
) {
  const branches = []
  const columns = ['links.id', 'links.created_at'] as const
  const links = () => {
    const all = ex.selectFrom('links').select(columns)
    return filter === undefined ? all : all.where(filter)
  }
  if (owners.personal) branches.push(links().where('links.user_id', '=', owners.userId))
  for (const organizationId of owners.organizationIds)
    branches.push(
      links()
        .where('links.organization_id', '=', organizationId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('organization_members')
              .select('organization_members.user_id')
              .where('organization_members.organization_id', '=', organizationId)
              .where('organization_members.user_id', '=', owners.userId),
          ),
        ),
    )
  if (owners.teams)
    branches.push(
      links().where(sql<boolean>`${sql.ref('links.id')} in (${teamLinkIds(owners.userId)})`),
    )
  // An owner-less page (a filter no membership passes) still needs one branch: it finds nothing.
  if (branches.length === 0)
    branches.push(ex.selectFrom('links').select(columns).where(sql.lit(false)))
  const limited = branches.map((branch, i) =>
    ex
      .selectFrom(byCreation(branch, window).as(`b${i}`))
      .select([`b${i}.id as id`, `b${i}.created_at as created_at`]),
  )
  // A link shared with a team may also be the person's or their organization's: union, not union
  // all, so that the page's limit + 1 are distinct links.
  const candidates = limited
    .slice(1)
    .reduce(
      (union, branch) => (owners.teams ? union.union(branch) : union.unionAll(branch)),
      limited[0]!,
    )
  return ex
    .selectFrom(candidates.as('owners_newest'))
    .select('owners_newest.id')
    .orderBy('owners_newest.created_at', 'desc')
    .orderBy('owners_newest.id', 'desc')
    .limit(sql.lit(window.limit + 1))
}

/**
 * The links of `query` whose id the page's `ids` hold. PostgreSQL plans `in (subquery)` as a join
 * and, at a few thousand links, prices reading the whole links table and hashing the ids below
 * probing its primary key for each (its default random_page_cost prices each probe as a read from
 * disk). As an array of the ids, read first, each link is read by its key at any size
 * (docs/decisions/0080-a-page-of-ids-by-key.md).
 */
function amongIds(
  ex: Executor,
  query: ReturnType<typeof linksAsSeenBy>,
  ids: ReturnType<typeof newestOfOwners>,
): ReturnType<typeof linksAsSeenBy> {
  return isPostgres(ex)
    ? query.where('links.id', '=', sql<string>`any(array(${ids}))`)
    : query.where('links.id', 'in', ids)
}

/**
 * How many shapes of the owners' page stay compiled; the oldest is dropped beyond. One kind of
 * person (their organizations' number, a team or not) makes some 46: the pages the console and
 * the API ask for, with a cursor and without, and a walked search's 40 (five round sizes, four
 * tests, with a cursor and without). Each holds its SQL text, a few kilobytes.
 */
const OWNERS_PAGE_SHAPES = 256
const ownersPages = new Map<
  string,
  (ex: Executor, values: Record<string, unknown>) => Promise<OwnersPageRow[]>
>()

/** A row of the owners' page; with a test (`OwnersPageTest`), whether the link passes it (1). */
export type OwnersPageRow = VisibleRow & { passes?: number }

/**
 * A condition on `links` answered for each row of the page as `passes`, instead of filtering: a
 * shape of its own (`shape`), built from the values named `names`.
 */
export interface OwnersPageTest {
  shape: string
  names: readonly string[]
  build: (ex: Executor, params: Record<string, string>) => RawBuilder<number>
  values: Record<string, unknown>
}

/**
 * The page of the owners' newest links (newestOfOwners), compiled once per shape — whether the
 * person's own links are on it, how many organizations, a cursor or not, the page's size, the test
 * — and run with each request's values: building and compiling it cost more than running it.
 */
export function ownersPage(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  test?: OwnersPageTest,
): Promise<OwnersPageRow[]> {
  assertIssuedCursor(window)
  const organizations = owners.organizationIds.length
  const withCursor = window.after !== null
  const key = [
    owners.personal,
    organizations,
    owners.teams,
    withCursor,
    window.limit,
    test?.shape ?? '',
  ].join(':')
  let page = ownersPages.get(key)
  if (page === undefined) {
    const orgNames = owners.organizationIds.map((_, i) => `org${i}`)
    const names = [
      'userId',
      ...orgNames,
      ...(withCursor ? ['afterTime', 'afterId'] : []),
      ...(test?.names ?? []),
    ]
    page = compiledOnce(names, (shapeEx, p) => {
      const shapeWindow: PageWindow = {
        limit: window.limit,
        after: withCursor ? [p.afterTime!, p.afterId!] : null,
      }
      const shapeOwners = {
        userId: p.userId!,
        personal: owners.personal,
        organizationIds: orgNames.map((name) => p[name]!),
        teams: owners.teams,
      }
      const query = amongIds(
        shapeEx,
        linksAsSeenBy(shapeEx, p.userId!),
        newestOfOwners(shapeEx, shapeOwners, shapeWindow),
      )
      const tested = test === undefined ? query : query.select(test.build(shapeEx, p).as('passes'))
      return byCreation(tested, shapeWindow)
    })
    if (ownersPages.size >= OWNERS_PAGE_SHAPES)
      ownersPages.delete(ownersPages.keys().next().value as string)
    ownersPages.set(key, page)
  }
  const values: Record<string, unknown> = { userId: owners.userId, ...test?.values }
  owners.organizationIds.forEach((id, i) => (values[`org${i}`] = id))
  if (window.after !== null) [values.afterTime, values.afterId] = window.after
  return page(ex, values)
}

/**
 * The page of the owners' newest links that pass `filter`, each owner's branch filtered: built for
 * each request, so that PostgreSQL plans it for the filter's values — for each owner, reading its
 * newest links in its index's order until enough pass, or the links that pass from another index
 * and then ordering them, whichever it expects to cost less.
 */
export function filteredOwnersPage(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  filter: RawBuilder<boolean>,
): Promise<VisibleRow[]> {
  assertIssuedCursor(window)
  const query = amongIds(
    ex,
    linksAsSeenBy(ex, owners.userId),
    newestOfOwners(ex, owners, window, filter),
  )
  return byCreation(query, window).execute()
}

/**
 * How many of the owners' links pass `filter` (all of them without one), counted up to `most` + 1:
 * each owner's newest `most` + 1 read in its index's order, so that the count stops there — a
 * limit without that order would let PostgreSQL read the links table from its start until it had
 * found enough, all of it where the person's links come last.
 */
export async function countOwnersLinks(
  ex: Executor,
  owners: PageOwners,
  most: number,
  filter?: RawBuilder<boolean>,
): Promise<number> {
  const newest = newestOfOwners(ex, owners, { limit: most, after: null }, filter)
  const row = await ex
    .selectFrom(newest.as('counted'))
    .select(sql<number | string>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  // PostgreSQL answers count(*) as bigint text.
  return Number(row.total)
}
