/**
 * A page of the links a person sees, newest first or most clicked first, read owner by owner: each
 * owner's first links in the page's order from its (owner, created_at, id) or (owner,
 * recent_clicks, id) index, so that a page costs the same with 40 links or 40,000
 * (docs/decisions/0036-links-list-at-scale.md, 0085-recent-clicks-kept-on-the-link.md). The Links
 * screen's pages without a search, and the walk of a search through them (search-walk.repo.ts),
 * read through it.
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'
import { assertIssuedCursor, keyset, type PageWindow } from '../../db/keyset.js'
import { invalidField } from '../../errors.js'
import { CURSOR_NOT_ISSUED } from '../../lib/pagination.js'
import { compiledOnce } from '../../db/precompiled.js'
import type { LinkFilters } from './link-filters.js'
import { teamLinkIds } from './visibility.js'
import { asVisible, linksAsSeenBy, type VisibleLink, type VisibleRow } from './visible.repo.js'

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

/** A page's order: newest first (created_at, id), or most clicked first (recent_clicks, id). */
export type OwnersOrder = 'newest' | 'clicks'

const ORDER_COLUMN = { newest: 'created_at', clicks: 'recent_clicks' } as const

/**
 * The page's order over the links' (column, id), as newestFirst, for a statement compiled once
 * with placeholders for the cursor: the caller checked the request's cursor itself.
 */
function inOrder<Q extends Parameters<typeof keyset>[0]>(
  query: Q,
  window: PageWindow,
  order: OwnersOrder,
): Q {
  return keyset(query, window, {
    column: ORDER_COLUMN[order],
    table: 'links',
    direction: 'desc',
  }) as Q
}

/** The largest count a cursor may carry: `recent_clicks` is a 32-bit integer on PostgreSQL. */
const MAX_COUNT = 2 ** 31 - 1

/**
 * A cursor of the page's order carries a value this service issued: a 400 otherwise, never a
 * value the database refuses.
 */
export function assertOrderCursor(window: PageWindow, order: OwnersOrder): void {
  if (order === 'newest') return assertIssuedCursor(window)
  const count = window.after?.[0]
  if (count !== undefined && !(/^\d{1,10}$/.test(count) && Number(count) <= MAX_COUNT))
    throw invalidField('cursor', CURSOR_NOT_ISSUED)
}

/**
 * The ids of the page's links: each owner's first `limit + 1` in the page's order after the
 * cursor, read in order from its (owner, created_at, id) or (owner, recent_clicks, id) index — so
 * a page costs the same with 40 links or 40,000 (docs/decisions/0036-links-list-at-scale.md) — and
 * of those, the first `limit + 1`, chosen by the index's own columns, so that only the page's
 * links are read, whatever the number of owners.
 * An organization's branch checks the membership again, in the same statement: one left a moment
 * ago does not show. For someone in a team, the links shared with their teams are one more branch:
 * it reads each of those links, so it grows with what the teams share, not with all the links.
 * With a `filter`, each branch keeps only the links that pass it.
 */
function firstOfOwners(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  order: OwnersOrder,
  filter?: RawBuilder<boolean>,
) {
  const branches = []
  const key = ORDER_COLUMN[order]
  const columns = ['links.id', `links.${key}`] as const
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
      .selectFrom(inOrder(branch, window, order).as(`b${i}`))
      .select([`b${i}.id as id`, sql.ref(`b${i}.${key}`).as('sort_key')]),
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
    .selectFrom(candidates.as('owners_first'))
    .select('owners_first.id')
    .orderBy('owners_first.sort_key', 'desc')
    .orderBy('owners_first.id', 'desc')
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
  ids: ReturnType<typeof firstOfOwners>,
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

/**
 * A row of the owners' page; with a test (`OwnersPageTest`), whether the link passes it (1); in the
 * order `clicks`, its count.
 */
export type OwnersPageRow = VisibleRow & { passes?: number; clicks_sort?: number }

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

/** A link of an owners' page, with its count in the order `clicks` (the cursor's key). */
export function asPageLink(row: OwnersPageRow): VisibleLink {
  return row.clicks_sort === undefined
    ? asVisible(row)
    : Object.assign(asVisible(row), { clicks_sort: row.clicks_sort })
}

/** How an owners' page is read: in which order, and with a test of each of its links. */
export interface OwnersPageOptions {
  order?: OwnersOrder
  test?: OwnersPageTest
}

/**
 * The links of the owners' page, in its order, as a person sees them; with the order `clicks`,
 * each with its count as `clicks_sort` (the cursor's key).
 */
function seenInOrder(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  order: OwnersOrder,
  filter?: RawBuilder<boolean>,
) {
  const seen = linksAsSeenBy(ex, owners.userId)
  return amongIds(
    ex,
    order === 'clicks' ? seen.select('links.recent_clicks as clicks_sort') : seen,
    firstOfOwners(ex, owners, window, order, filter),
  )
}

/**
 * The owners' page (firstOfOwners), compiled once per shape — whether the person's own links are
 * on it, how many organizations, a cursor or not, the page's size and order, the test — and run
 * with each request's values: building and compiling it cost more than running it.
 */
export function ownersPage(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  { order = 'newest', test }: OwnersPageOptions = {},
): Promise<OwnersPageRow[]> {
  assertOrderCursor(window, order)
  const organizations = owners.organizationIds.length
  const withCursor = window.after !== null
  const key = [
    owners.personal,
    organizations,
    owners.teams,
    withCursor,
    window.limit,
    order,
    test?.shape ?? '',
  ].join(':')
  let page = ownersPages.get(key)
  if (page === undefined) {
    const orgNames = owners.organizationIds.map((_, i) => `org${i}`)
    const names = [
      'userId',
      ...orgNames,
      ...(withCursor ? ['afterKey', 'afterId'] : []),
      ...(test?.names ?? []),
    ]
    page = compiledOnce(names, (shapeEx, p) => {
      const shapeWindow: PageWindow = {
        limit: window.limit,
        after: withCursor ? [p.afterKey!, p.afterId!] : null,
      }
      const shapeOwners = {
        userId: p.userId!,
        personal: owners.personal,
        organizationIds: orgNames.map((name) => p[name]!),
        teams: owners.teams,
      }
      const query = seenInOrder(shapeEx, shapeOwners, shapeWindow, order)
      const tested = test === undefined ? query : query.select(test.build(shapeEx, p).as('passes'))
      return inOrder(tested, shapeWindow, order)
    })
    if (ownersPages.size >= OWNERS_PAGE_SHAPES)
      ownersPages.delete(ownersPages.keys().next().value as string)
    ownersPages.set(key, page)
  }
  const values: Record<string, unknown> = { userId: owners.userId, ...test?.values }
  owners.organizationIds.forEach((id, i) => (values[`org${i}`] = id))
  if (window.after !== null) [values.afterKey, values.afterId] = window.after
  return page(ex, values)
}

/**
 * The owners' page of the links that pass `filter`, each owner's branch filtered: built for each
 * request, so that PostgreSQL plans it for the filter's values — for each owner, reading its links
 * in its index's order until enough pass, or the links that pass from another index and then
 * ordering them, whichever it expects to cost less.
 */
export function filteredOwnersPage(
  ex: Executor,
  owners: PageOwners,
  window: PageWindow,
  filter: RawBuilder<boolean>,
  order: OwnersOrder = 'newest',
): Promise<OwnersPageRow[]> {
  assertOrderCursor(window, order)
  return inOrder(seenInOrder(ex, owners, window, order, filter), window, order).execute()
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
  const newest = firstOfOwners(ex, owners, { limit: most, after: null }, 'newest', filter)
  const row = await ex
    .selectFrom(newest.as('counted'))
    .select(sql<number | string>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  // PostgreSQL answers count(*) as bigint text.
  return Number(row.total)
}
