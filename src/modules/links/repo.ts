/**
 * SQL for links. Every read for a user goes through the visibility rule (visibility.ts): a link of
 * an organization the user does not belong to is not found, exactly like one that does not exist.
 */
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import type { Executor, LinksTable, Timestamp } from '../../db/schema.js'
import { assertIssuedCursor, newestFirst, type PageWindow } from '../../db/keyset.js'
import { invalidField } from '../../errors.js'
import { CURSOR_NOT_ISSUED } from '../../lib/pagination.js'
import { anyContains, anyLike, containing } from '../../db/text-search.js'
import type { Role } from '../organizations/roles.js'
import { compiledOnce, precompiled } from '../../db/precompiled.js'
import { isPostgres } from '../../db/engine.js'
import { urlKey } from '../../lib/url-key.js'
import {
  collectionVisibleTo,
  forwardingWithSlugKey,
  sharedWithTeamsOf,
  visibleToIndexed,
} from './visibility.js'

/** A link row as the API reads it (`slug_key` is for matching only; booleans are booleans). */
export type LinkRecord = Omit<
  Selectable<LinksTable>,
  'slug_key' | 'url_key' | 'forwarding_enabled'
> & {
  forwarding_enabled: boolean
}

/** A link as one user sees it: with their role in its organization and the organization's name. */
export interface VisibleLink extends LinkRecord {
  /** The reader's role in the link's organization; null for a personal link. */
  role: Role | null
  organization_name: string | null
}

/** Links with the reader's role and the organization's name, before any filter. */
function linksAsSeenBy(ex: Executor, userId: string) {
  return ex
    .selectFrom('links')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'links.organization_id')
        .on('organization_members.user_id', '=', userId),
    )
    .select([
      'links.id',
      'links.user_id',
      'links.organization_id',
      'links.created_by',
      'links.url',
      'links.title',
      'links.slug',
      'links.forwarding_enabled',
      'links.created_at',
      'links.updated_at',
      'organization_members.role',
      'organizations.name as organization_name',
    ])
}

function visibleLinks(ex: Executor, userId: string) {
  return linksAsSeenBy(ex, userId).where(visibleToIndexed(ex, userId))
}

type VisibleRow = Omit<VisibleLink, 'forwarding_enabled' | 'role'> & {
  forwarding_enabled: unknown
  role: string | null
}

/**
 * SQLite answers booleans as 0/1. The fields are named one by one: a page maps 51 rows, and
 * spreading node:sqlite's rows costs several times more.
 */
function asVisible(row: VisibleRow): VisibleLink {
  return {
    id: row.id,
    user_id: row.user_id,
    organization_id: row.organization_id,
    created_by: row.created_by,
    url: row.url,
    title: row.title,
    slug: row.slug,
    forwarding_enabled: Boolean(row.forwarding_enabled),
    created_at: row.created_at,
    updated_at: row.updated_at,
    role: row.role as Role | null,
    organization_name: row.organization_name,
  }
}

export async function findVisibleLink(
  ex: Executor,
  userId: string,
  linkId: string,
): Promise<VisibleLink | null> {
  const row = await visibleLinks(ex, userId).where('links.id', '=', linkId).executeTakeFirst()
  return row ? asVisible(row) : null
}

export interface LinkFilters {
  tagId?: string
  q?: string
  organizationId?: string
  /**
   * `personal`: the user's own links only; `organization`: only links shared with an organization.
   */
  owner?: 'personal' | 'organization'
  /** An API token's organization boundary — personal links and these organizations' only. */
  reachable?: ReadonlySet<string>
  /** Most clicked first (clicks since this UTC day, then newest id), instead of newest first. */
  clicksSince?: string
  /** `shared`: only links shared with one of the user's teams (directly or by a collection). */
  scope?: 'shared'
  /** Only the links the user pinned (true), or only the others (false). */
  pinned?: boolean
  /** Only this collection's links (when the user sees it), in its order instead of newest first. */
  collectionId?: string
}

/** A link's clicks since the day, as an SQL expression (the sort key of the clicks order). */
function clicksSinceOf(day: string) {
  return sql<number>`coalesce((select sum(link_clicks.clicks) from link_clicks where link_clicks.link_id = ${sql.ref('links.id')} and link_clicks.day >= ${day}), 0)`
}

/** The cursor of the clicks order: [clicks, id]; a forged count is a 400, not a database error. */
function afterClicks(window: PageWindow): { clicks: number; id: string } | null {
  if (window.after === null) return null
  const [count, id] = window.after
  if (!/^\d{1,15}$/.test(count)) throw invalidField('cursor', CURSOR_NOT_ISSUED)
  return { clicks: Number(count), id }
}

/** The shortest search the trigram indexes answer (migration 0065_link_search). */
const TRIGRAM = 3

/**
 * True where the link's title, URL or slug contains `q`, ignoring case. From 3 characters on, the
 * candidates come from trigrams: PostgreSQL's pg_trgm indexes answer the LIKE itself; on SQLite
 * the FTS5 table narrows the links to its matches first (it folds case more widely than SQLite's
 * lower(), so the LIKE still decides). A shorter term is looked for among the visible links only.
 */
function matchesSearch(ex: Executor, q: string) {
  const contains = anyContains(['links.title', 'links.url', 'links.slug'], q)
  if ([...q].length < TRIGRAM || isPostgres(ex)) return contains
  const phrase = `"${q.replaceAll('"', '""')}"`
  const candidates = sql`select link_search_rows.link_id from link_search_rows where link_search_rows.id in (select links_fts.rowid from links_fts where links_fts match ${phrase})`
  return sql<boolean>`(${sql.ref('links.id')} in (${candidates}) and ${contains})`
}

/** SQLite answers a search of 3 characters or more from its search table alone (0105). */
function searchTablePages(ex: Executor, q: string): boolean {
  return !isPostgres(ex) && [...q].length >= TRIGRAM
}

/** What a search page's statement is run with (or, compiled once, the placeholders for it). */
interface SearchPageValues {
  userId: string
  /** The term as one FTS5 phrase. */
  phrase: string
  /** The term as a LIKE pattern (text-search.ts containing). */
  pattern: string
  afterTime: string
  afterId: string
  /** The page's size plus one: the extra row only tells whether there is a next page. */
  limit: string | number
}

/**
 * SQLite: a search page, its links' ids read from the search table alone — its trigram index
 * finds the matches, and the copies of each link's text, id, owner and creation time it holds
 * decide the match (the LIKE), the visibility, the filters on the owner and the page — so a search
 * reads one row per match there and only the page's rows of links
 * (docs/decisions/0045-link-search-page-from-the-search-table.md).
 */
function searchPageQuery(
  ex: Executor,
  values: SearchPageValues,
  filters: LinkFilters,
  withCursor: boolean,
) {
  const row = {
    id: 'links_fts.link_id',
    userId: 'links_fts.user_id',
    organizationId: 'links_fts.organization_id',
  }
  const limit = sql<number>`${values.limit}`
  const conditions = [
    anyLike(['links_fts.title', 'links_fts.url', 'links_fts.slug'], values.pattern),
    visibleToIndexed(ex, values.userId, row),
    ...ownerConditions(filters, row.organizationId),
  ]
  const after = (table: string, id: string) =>
    sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.${id}`)}) < (${values.afterTime}, ${values.afterId})`
  if (withCursor) conditions.push(after('links_fts', 'link_id'))
  const ids = sql`select links_fts.link_id from links_fts where links_fts match ${values.phrase} and ${sql.join(conditions, sql` and `)} order by links_fts.created_at desc, links_fts.link_id desc limit ${limit}`
  let page = linksAsSeenBy(ex, values.userId).where(
    sql<boolean>`${sql.ref('links.id')} in (${ids})`,
  )
  if (withCursor) page = page.where(after('links', 'id'))
  return page.orderBy('links.created_at', 'desc').orderBy('links.id', 'desc').limit(limit)
}

const SEARCH_PAGE_VALUES = ['userId', 'phrase', 'pattern', 'limit'] as const

/**
 * The search page without a filter on the owner — the Links screen's search — compiled once, with
 * a cursor and without: building and compiling it cost as much as running it
 * (docs/decisions/0055-links-page-one-read-for-its-extras.md).
 */
const selectSearchPage = {
  first: compiledOnce(SEARCH_PAGE_VALUES, (ex, p) =>
    searchPageQuery(ex, { ...p, afterTime: '', afterId: '' }, {}, false),
  ),
  after: compiledOnce([...SEARCH_PAGE_VALUES, 'afterTime', 'afterId'], (ex, p) =>
    searchPageQuery(ex, p, {}, true),
  ),
}

async function searchPage(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  q: string,
  window: PageWindow,
): Promise<VisibleLink[]> {
  assertIssuedCursor(window)
  const values = {
    userId,
    phrase: `"${q.replaceAll('"', '""')}"`,
    pattern: containing(q),
    afterTime: window.after?.[0] ?? '',
    afterId: window.after?.[1] ?? '',
    limit: window.limit + 1,
  }
  const rows =
    ownerConditions(filters, 'links_fts.organization_id').length > 0
      ? await searchPageQuery(ex, values, filters, window.after !== null).execute()
      : await (window.after === null ? selectSearchPage.first : selectSearchPage.after)(ex, values)
  return rows.map(asVisible)
}

/** The visible links matching the filters (all but the collection and the order). */
function filteredLinks(ex: Executor, userId: string, filters: LinkFilters) {
  let query = visibleLinks(ex, userId)
  if (filters.tagId !== undefined) {
    const tagId = filters.tagId
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('link_tags')
          .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
          .select('link_tags.tag_id')
          .whereRef('link_tags.link_id', '=', 'links.id')
          .where('link_tags.tag_id', '=', tagId)
          .where('tags.user_id', '=', userId),
      ),
    )
  }
  if (filters.q !== undefined) query = query.where(matchesSearch(ex, filters.q))
  for (const condition of ownerConditions(filters, 'links.organization_id'))
    query = query.where(condition)
  if (filters.scope === 'shared') query = query.where(sharedWithTeamsOf(ex, userId))
  if (filters.pinned !== undefined) {
    const pinned = filters.pinned
    query = query.where((eb) => {
      const pin = eb
        .selectFrom('link_pins')
        .select('link_pins.link_id')
        .whereRef('link_pins.link_id', '=', 'links.id')
        .where('link_pins.user_id', '=', userId)
      return pinned ? eb.exists(pin) : eb.not(eb.exists(pin))
    })
  }
  return query
}

/**
 * The filters on a link's organization (`organizationId`, `owner`, `reachable`) as conditions on
 * `column`: the links' own, or the search table's copy of it.
 */
function ownerConditions(filters: LinkFilters, column: string): RawBuilder<boolean>[] {
  const organization = sql.ref(column)
  const conditions: RawBuilder<boolean>[] = []
  if (filters.organizationId !== undefined)
    conditions.push(sql<boolean>`${organization} = ${filters.organizationId}`)
  if (filters.owner === 'personal') conditions.push(sql<boolean>`${organization} is null`)
  if (filters.owner === 'organization') conditions.push(sql<boolean>`${organization} is not null`)
  if (filters.reachable !== undefined) {
    const ids = [...filters.reachable]
    conditions.push(
      ids.length === 0
        ? sql<boolean>`${organization} is null`
        : sql<boolean>`(${organization} is null or ${organization} in (${sql.join(ids)}))`,
    )
  }
  return conditions
}

/**
 * How many visible links match the filters: the list's own statement counted, so it reads the
 * same owners' indexes (visibleToIndexed) and never more rows than the person can see.
 */
export async function countVisibleLinks(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
): Promise<number> {
  let query = filteredLinks(ex, userId, filters)
  if (filters.collectionId !== undefined) query = inCollection(query, userId, filters.collectionId)
  const row = await query
    .clearSelect()
    .select(sql<number | string>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  // PostgreSQL answers count(*) as bigint text.
  return Number(row.total)
}

/**
 * Newest first; `tagId` matches only the user's own tag, `q` the title, URL or slug ignoring case.
 */
export async function listVisibleLinks(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  window: PageWindow,
): Promise<VisibleLink[]> {
  const query = filteredLinks(ex, userId, filters)
  if (filters.collectionId !== undefined)
    return (await inCollectionOrder(ex, query, userId, filters.collectionId, window)).map(
      (row) => ({
        ...asVisible(row),
        position_sort: row.position_sort,
      }),
    )
  if (filters.clicksSince !== undefined) {
    const clicks = clicksSinceOf(filters.clicksSince)
    const after = afterClicks(window)
    const ordered = (
      after === null
        ? query
        : query.where(
            sql<boolean>`(${clicks}, ${sql.ref('links.id')}) < (${after.clicks}, ${after.id})`,
          )
    )
      .select(clicks.as('clicks_sort'))
      .orderBy(clicks, 'desc')
      .orderBy('links.id', 'desc')
      .limit(window.limit + 1)
    return (await ordered.execute()).map((row) => ({
      ...asVisible(row),
      clicks_sort: row.clicks_sort,
    }))
  }
  const otherFilters =
    filters.tagId !== undefined || filters.scope !== undefined || filters.pinned !== undefined
  if (!otherFilters && filters.q !== undefined && searchTablePages(ex, filters.q))
    return searchPage(ex, userId, filters, filters.q, window)
  if (!otherFilters && filters.q === undefined) {
    const owners = await pageOwners(ex, userId, filters)
    if (owners !== null) {
      const page = linksAsSeenBy(ex, userId).where(
        'links.id',
        'in',
        newestOfOwners(ex, owners, window),
      )
      return (await newestFirst(page, window, 'links').execute()).map(asVisible)
    }
  }
  return (await newestFirst(query, window, 'links').execute()).map(asVisible)
}

/** Above this many organizations a page reads the owners' indexes together (visibleToIndexed). */
const MAX_PAGE_BRANCHES = 50

interface PageOwners {
  userId: string
  /** The user's own links are on the page (not for `owner: organization` nor another filter). */
  personal: boolean
  organizationIds: string[]
}

/**
 * Whose links a page without a search or tag may hold: the user, and the organizations they
 * belong to that the filters keep; null when they belong to too many to read one by one, or to a
 * team (links and collections shared with teams are not owned by anyone the page could walk).
 */
async function pageOwners(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
): Promise<PageOwners | null> {
  const team = await ex
    .selectFrom('team_members')
    .select('team_id')
    .where('user_id', '=', userId)
    .limit(1)
    .executeTakeFirst()
  if (team !== undefined) return null
  const rows = await ex
    .selectFrom('organization_members')
    .select('organization_id')
    .where('user_id', '=', userId)
    .execute()
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
  return { userId, personal, organizationIds }
}

/**
 * The ids of the page's candidates: each owner's newest `limit + 1` after the cursor, read in
 * order from its (owner, created_at, id) index — so a page costs the same with 40 links or 40,000
 * (docs/decisions/0036-links-list-at-scale.md). An organization's branch checks the membership
 * again, in the same statement: one left a moment ago does not show.
 */
function newestOfOwners(ex: Executor, owners: PageOwners, window: PageWindow) {
  const branches = []
  if (owners.personal)
    branches.push(
      ex.selectFrom('links').select('links.id').where('links.user_id', '=', owners.userId),
    )
  for (const organizationId of owners.organizationIds)
    branches.push(
      ex
        .selectFrom('links')
        .select('links.id')
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
  // An owner-less page (a filter no membership passes) still needs one branch: it finds nothing.
  if (branches.length === 0)
    branches.push(ex.selectFrom('links').select('links.id').where(sql.lit(false)))
  const limited = branches.map((branch, i) =>
    ex.selectFrom(newestFirst(branch, window, 'links').as(`b${i}`)).select(`b${i}.id as id`),
  )
  return limited.slice(1).reduce((union, branch) => union.unionAll(branch), limited[0]!)
}

/** Only the links of this collection, when the user sees it. */
function inCollection(
  query: ReturnType<typeof visibleLinks>,
  userId: string,
  collectionId: string,
) {
  return query
    .innerJoin('collection_links', (join) =>
      join
        .onRef('collection_links.link_id', '=', 'links.id')
        .on('collection_links.collection_id', '=', collectionId),
    )
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('collections')
          .select('collections.id')
          .where('collections.id', '=', collectionId)
          .where(collectionVisibleTo(userId)),
      ),
    )
}

/** The collection's links among the query's, in its order: keyset over (position, id). */
async function inCollectionOrder(
  ex: Executor,
  query: ReturnType<typeof visibleLinks>,
  userId: string,
  collectionId: string,
  window: PageWindow,
) {
  const position = sql.ref('collection_links.position')
  let ordered = inCollection(query, userId, collectionId).select(
    'collection_links.position as position_sort',
  )
  if (window.after !== null) {
    const [after] = window.after
    if (!/^\d{1,9}$/.test(after)) throw invalidField('cursor', CURSOR_NOT_ISSUED)
    ordered = ordered.where('collection_links.position', '>', Number(after))
  }
  return ordered
    .orderBy(position)
    .limit(window.limit + 1)
    .execute()
}

/**
 * The forwarding links with this slug (lower-cased) the user sees: personal first, then by
 * organization name, then newest first.
 */
export async function findForwardingLinks(
  ex: Executor,
  userId: string,
  slugKey: string,
): Promise<VisibleLink[]> {
  return (await selectForwardingLinks(ex, { userId, slugKey })).map(asVisible)
}

/**
 * The order of a slug's forwarding links: personal first, then by organization name, then newest
 * first.
 */
const FORWARDING_ORDER = sql`case when ${sql.ref('links.organization_id')} is null then 0 else 1 end, lower(${sql.ref('organizations.name')}), ${sql.ref('links.created_at')} desc, ${sql.ref('links.id')} desc`

// The ids come from index probes that apply the visibility rule (visibility.ts
// forwardingWithSlugKey), each once; the rest is joined to them by primary key (as `in (…)`, a
// planner that overestimates the probes' rows reads every link to hash them).
const selectForwardingLinks = precompiled(['userId', 'slugKey'], (ex, p) =>
  ex
    .selectFrom(forwardingWithSlugKey(ex, p.userId, p.slugKey).as('found'))
    .innerJoin('links', 'links.id', 'found.id')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'links.organization_id')
        .on('organization_members.user_id', '=', p.userId),
    )
    .select([
      'links.id',
      'links.user_id',
      'links.organization_id',
      'links.created_by',
      'links.url',
      'links.title',
      'links.slug',
      'links.forwarding_enabled',
      'links.created_at',
      'links.updated_at',
      'organization_members.role',
      'organizations.name as organization_name',
    ])
    .orderBy(FORWARDING_ORDER),
)

/** What the go redirect needs of a link: where it goes, and whose boundary it is inside. */
export type GoCandidate = Pick<VisibleLink, 'id' | 'url' | 'organization_id'>

/**
 * The forwarding links with this slug key that the user sees, each as a GoCandidate in no
 * particular order, and the user's chosen link among them (null: none, or no link matched — the
 * caller then asks for a stale preference itself, a rare path). The chooser, shown when several
 * match, reads them whole with findForwardingLinks.
 */
export async function findGoCandidates(
  ex: Executor,
  userId: string,
  slugKey: string,
): Promise<{ links: GoCandidate[]; preferred: string | null }> {
  const rows = await selectGoCandidates(ex, { userId, slugKey })
  return {
    links: rows.map(({ id, url, organization_id }) => ({ id, url, organization_id })),
    preferred: rows[0]?.preferred_link_id ?? null,
  }
}

/** The preference's column of the go redirect's reads: the link the user chose for the slug. */
export function preferredLinkColumn(userId: string, slugKey: string) {
  return sql<
    string | null
  >`(select go_preferences.link_id from go_preferences where go_preferences.user_id = ${userId} and go_preferences.slug_key = ${slugKey})`.as(
    'preferred_link_id',
  )
}

// Compiled once (prepared on PostgreSQL). No order: the redirect needs none.
const selectGoCandidates = precompiled(['userId', 'slugKey'], (ex, p) =>
  ex
    .selectFrom(forwardingWithSlugKey(ex, p.userId, p.slugKey).as('candidates'))
    .select([
      'candidates.id',
      'candidates.url',
      'candidates.organization_id',
      preferredLinkColumn(p.userId, p.slugKey),
    ]),
)

/** What a link's owner and content are made of, as written (`url_key` follows `url`). */
export type LinkColumns = Omit<
  Insertable<LinksTable>,
  'id' | 'created_by' | 'created_at' | 'updated_at' | 'url_key'
>

/** The row's `url_key` beside its `url`, whenever the `url` is written. */
function withUrlKey<T extends { url?: string }>(row: T): T & { url_key?: string } {
  return row.url === undefined ? row : { ...row, url_key: urlKey(row.url) }
}

export async function insertLink(
  ex: Executor,
  link: LinkColumns & { id: string; created_by: string; created_at: Timestamp },
): Promise<void> {
  await ex
    .insertInto('links')
    .values(withUrlKey({ ...link, updated_at: link.created_at }))
    .execute()
}

export async function updateLink(
  ex: Executor,
  linkId: string,
  changes: Partial<LinkColumns> & { updated_at: Timestamp },
): Promise<void> {
  await ex.updateTable('links').set(withUrlKey(changes)).where('id', '=', linkId).execute()
}

export async function deleteLink(ex: Executor, linkId: string): Promise<boolean> {
  const result = await ex.deleteFrom('links').where('id', '=', linkId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Puts a deleted link's row back as it was (restore), with the slug it gets now. */
export async function insertLinkRow(ex: Executor, row: Insertable<LinksTable>): Promise<void> {
  await ex.insertInto('links').values(withUrlKey(row)).execute()
}

/** The user's own tags (id and name) on each of the links, by tag name ignoring case. */
export async function findOwnTagsOfLinks(
  ex: Executor,
  userId: string,
  linkIds: readonly string[],
): Promise<Map<string, Array<{ id: string; name: string }>>> {
  const byLink = new Map<string, Array<{ id: string; name: string }>>(linkIds.map((id) => [id, []]))
  if (linkIds.length === 0) return byLink
  const rows = await ex
    .selectFrom('link_tags')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .select(['link_tags.link_id', 'link_tags.tag_id', 'tags.name'])
    .where('tags.user_id', '=', userId)
    .where('link_tags.link_id', 'in', linkIds)
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute()
  for (const row of rows) byLink.get(row.link_id)?.push({ id: row.tag_id, name: row.name })
  return byLink
}

/** Replaces the user's own tags on the link; other users' tags on a shared link stay. */
export async function replaceOwnLinkTags(
  ex: Executor,
  userId: string,
  linkId: string,
  tagIds: readonly string[],
): Promise<void> {
  await ex
    .deleteFrom('link_tags')
    .where('link_id', '=', linkId)
    .where('tag_id', 'in', (eb) => eb.selectFrom('tags').select('id').where('user_id', '=', userId))
    .execute()
  if (tagIds.length > 0)
    await ex
      .insertInto('link_tags')
      .values(tagIds.map((tagId) => ({ link_id: linkId, tag_id: tagId })))
      .execute()
}

/** Whose links a slug or URL is unique among: one user's personal links, or one organization's. */
export type LinkOwner =
  { userId: string; organizationId: null } | { userId: null; organizationId: string }

function linksOf(ex: Executor, owner: LinkOwner) {
  const query = ex.selectFrom('links')
  return owner.organizationId === null
    ? query.where('links.user_id', '=', owner.userId)
    : query.where('links.organization_id', '=', owner.organizationId)
}

/** The id of the owner's link with this slug (lower-cased), if any. */
export async function findLinkIdBySlug(
  ex: Executor,
  owner: LinkOwner,
  slugKey: string,
): Promise<string | null> {
  const row = await linksOf(ex, owner)
    .select('links.id')
    .where('links.slug_key', '=', slugKey)
    .executeTakeFirst()
  return row?.id ?? null
}

/** The values of `column` among the owner's links that are in `values`, asked in chunks. */
async function findTaken(
  ex: Executor,
  owner: LinkOwner,
  column: 'slug_key' | 'url',
  values: readonly string[],
): Promise<Set<string>> {
  const taken = new Set<string>()
  for (let i = 0; i < values.length; i += IN_LIST_CHUNK) {
    const rows = await linksOf(ex, owner)
      .select(`links.${column} as value`)
      .where(`links.${column}`, 'in', values.slice(i, i + IN_LIST_CHUNK))
      .execute()
    for (const row of rows) if (row.value !== null) taken.add(row.value)
  }
  return taken
}

/** Which of the slugs (lower-cased) the owner's links already use. */
export function findTakenSlugKeys(
  ex: Executor,
  owner: LinkOwner,
  slugKeys: readonly string[],
): Promise<Set<string>> {
  return findTaken(ex, owner, 'slug_key', slugKeys)
}

/**
 * Of the (normalised) URLs, those the owner's links already point at, each with such a link's id
 * (the oldest's, should there be several).
 */
export async function findLinkIdsByUrl(
  ex: Executor,
  owner: LinkOwner,
  urls: readonly string[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  for (let i = 0; i < urls.length; i += IN_LIST_CHUNK) {
    const rows = await linksOf(ex, owner)
      .select(['links.url', 'links.id'])
      .where('links.url', 'in', urls.slice(i, i + IN_LIST_CHUNK))
      .orderBy('links.created_at', 'desc')
      .orderBy('links.id', 'desc')
      .execute()
    for (const row of rows) ids.set(row.url, row.id)
  }
  return ids
}

/** Bound parameters per statement stay far below SQLite's and PostgreSQL's limits. */
const IN_LIST_CHUNK = 200

/** Inserts many links and their tags (already checked), in chunks. */
export async function insertLinks(
  ex: Executor,
  links: ReadonlyArray<LinkColumns & { id: string; created_by: string; created_at: Timestamp }>,
  linkTags: ReadonlyArray<{ link_id: string; tag_id: string }>,
): Promise<void> {
  // Each link row binds 12 parameters; 50 rows stay under SQLite's 999-parameter default.
  for (let i = 0; i < links.length; i += 50) {
    await ex
      .insertInto('links')
      .values(
        links.slice(i, i + 50).map((link) => withUrlKey({ ...link, updated_at: link.created_at })),
      )
      .execute()
  }
  for (let i = 0; i < linkTags.length; i += IN_LIST_CHUNK) {
    await ex
      .insertInto('link_tags')
      .values(linkTags.slice(i, i + IN_LIST_CHUNK))
      .execute()
  }
}

/**
 * Locks the owner's row (the user, or the organization) until the transaction ends, so two imports
 * into the same owner run one after the other and the second sees the first's links (PostgreSQL;
 * SQLite serialises writers anyway).
 */
export async function lockLinkOwner(ex: Executor, owner: LinkOwner): Promise<void> {
  if (owner.organizationId === null)
    await ex.selectFrom('users').select('id').where('id', '=', owner.userId).forUpdate().execute()
  else
    await ex
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', owner.organizationId)
      .forUpdate()
      .execute()
}

/**
 * Clicks per link since `fromDay` (YYYY-MM-DD, inclusive), for these links; a link without any is
 * absent.
 */
export async function sumClicksSince(
  ex: Executor,
  linkIds: readonly string[],
  fromDay: string,
): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map()
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['link_id', (eb) => eb.fn.sum<number | string>('clicks').as('clicks')])
    .where('link_id', 'in', linkIds)
    .where('day', '>=', fromDay)
    .groupBy('link_id')
    .execute()
  return new Map(rows.map((row) => [row.link_id, Number(row.clicks)]))
}

/** The link's clicks per day since `fromDay`, by day; days without clicks are absent. */
export async function findDailyClicks(
  ex: Executor,
  linkId: string,
  fromDay: string,
): Promise<{ day: string; clicks: number }[]> {
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['day', 'clicks'])
    .where('link_id', '=', linkId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute()
  return rows.map((row) => ({ day: row.day, clicks: Number(row.clicks) }))
}

/** Every kept day's clicks of these links (for the export), each link's by day. */
export async function findClicksOfLinks(
  ex: Executor,
  linkIds: readonly string[],
): Promise<Map<string, { day: string; clicks: number }[]>> {
  const byLink = new Map<string, { day: string; clicks: number }[]>()
  if (linkIds.length === 0) return byLink
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['link_id', 'day', 'clicks'])
    .where('link_id', 'in', linkIds)
    .orderBy('link_id')
    .orderBy('day')
    .execute()
  for (const row of rows) {
    const days = byLink.get(row.link_id) ?? []
    days.push({ day: row.day, clicks: Number(row.clicks) })
    byLink.set(row.link_id, days)
  }
  return byLink
}

/** The links among `linkIds` the user sees (bulk actions), in no particular order. */
export async function findVisibleLinks(
  ex: Executor,
  userId: string,
  linkIds: readonly string[],
): Promise<VisibleLink[]> {
  if (linkIds.length === 0) return []
  return (await visibleLinks(ex, userId).where('links.id', 'in', linkIds).execute()).map(asVisible)
}

/** Puts the tag on each link that lacks it. */
export async function addTagToLinks(
  ex: Executor,
  tagId: string,
  linkIds: readonly string[],
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .insertInto('link_tags')
    .values(linkIds.map((linkId) => ({ link_id: linkId, tag_id: tagId })))
    .onConflict((oc) => oc.columns(['link_id', 'tag_id']).doNothing())
    .execute()
}

export async function removeTagFromLinks(
  ex: Executor,
  tagId: string,
  linkIds: readonly string[],
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .deleteFrom('link_tags')
    .where('tag_id', '=', tagId)
    .where('link_id', 'in', linkIds)
    .execute()
}

/** Moves the links to an organization, or (null) makes them `userId`'s personal links. */
export async function moveLinks(
  ex: Executor,
  linkIds: readonly string[],
  to: LinkOwner,
  now: Timestamp,
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .updateTable('links')
    .set({ organization_id: to.organizationId, user_id: to.userId, updated_at: now })
    .where('id', 'in', linkIds)
    .execute()
}

/**
 * Locks the links (FOR UPDATE, PostgreSQL; SQLite serialises writers) in id order, whatever the
 * order they were asked in: every writer of several links — a bulk action, a collection's PUT
 * (collections/repo.ts lockLinksOfCollection) — takes its link locks in this one order, so two of
 * them wait for each other instead of deadlocking.
 */
export async function lockLinksInIdOrder(ex: Executor, linkIds: readonly string[]): Promise<void> {
  const sorted = [...new Set(linkIds)].sort()
  for (let i = 0; i < sorted.length; i += IN_LIST_CHUNK) {
    await ex
      .selectFrom('links')
      .select('id')
      .where('id', 'in', sorted.slice(i, i + IN_LIST_CHUNK))
      .orderBy('id')
      .forUpdate()
      .execute()
  }
}
