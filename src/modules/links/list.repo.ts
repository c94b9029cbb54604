/**
 * The Links list's SQL: a page of the links a user sees — by search, tag, owner, scope, pins or
 * collection, newest first, by clicks or in a collection's order — and how many there are. Every
 * statement reads through the visibility rule (visibility.ts).
 */
import { sql, type RawBuilder } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { assertIssuedCursor, keyset, newestFirst, type PageWindow } from '../../db/keyset.js'
import { invalidField } from '../../errors.js'
import { CURSOR_NOT_ISSUED } from '../../lib/pagination.js'
import { anyContains, anyLike } from '../../db/text-search.js'
import { compiledOnce } from '../../db/precompiled.js'
import { isPostgres } from '../../db/engine.js'
import {
  collectionVisibleTo,
  LINK_COLUMNS,
  organizationIdsOf,
  sharedWithTeamsOf,
  visibleToIndexed,
  type LinkColumns,
} from './visibility.js'
import type { LinkFilters } from './link-filters.js'
import {
  asPageLink,
  assertOrderCursor,
  filteredOwnersPage,
  ownersPage,
  pageOwners,
  type OwnersOrder,
} from './owners-page.repo.js'
import { walkedSearchPage } from './search-walk.repo.js'
import { ownersCount, ownersSearchPage, readsPairs } from './search-by-owner.repo.js'
import {
  containsTest,
  notPinnedBy,
  postgresContains,
  postgresPairTest,
} from './search-terms.repo.js'
import { indexedTerm, isCommonTerm, type IndexedTerm } from './term-index.repo.js'
import { asVisible, linksAsSeenBy, visibleLinks, type VisibleLink } from './visible.repo.js'

/**
 * True where the link's title, URL or slug contains `q`, ignoring case. PostgreSQL compares its
 * stored lower-cased copy of the three (postgresContains), which its pg_trgm index answers from 3
 * characters on; a rare term of two characters is one of the copy's pairs of characters, which
 * its pairs index answers (`pairs`: readsPairs). On SQLite the trigram index finds the links
 * (`indexed`: term-index.repo.ts), each tested with LIKE as well where `indexed.like` asks; without
 * it each visible link is tested.
 */
function matchesSearch(ex: Executor, q: string, search: TermIndexes) {
  if (isPostgres(ex)) return search.pairs ? postgresPairTest(q) : postgresContains(q)
  const { indexed } = search
  if (indexed === null) return anyContains(['links.title', 'links.url', 'links.slug'], q)
  if (indexed.query === null) return sql<boolean>`0`
  const matches = sql`select link_search_rows.link_id from link_search_rows where link_search_rows.id in (${ftsMatches(indexed.query)})`
  const found = sql<boolean>`${sql.ref('links.id')} in (${matches})`
  if (indexed.like === null) return found
  return sql<boolean>`(${found} and ${anyLike(['links.title', 'links.url', 'links.slug'], indexed.like)})`
}

/** The search rows (`link_search_rows.id`) whose link's text matches the FTS5 query. */
function ftsMatches(query: string) {
  return sql`select links_fts.rowid from links_fts where links_fts match ${query}`
}

/**
 * SQLite: how the trigram index answers the filters' term (term-index.repo.ts), where the term's
 * links are read from it: not after a filter whose few links are each tested for the term.
 */
async function indexedSearch(ex: Executor, filters: LinkFilters): Promise<IndexedTerm | null> {
  if (isPostgres(ex) || filters.q === undefined || narrowedBeforeTheTerm(filters)) return null
  return indexedTerm(ex, filters.q)
}

/** How the general statement reads the filters' term from an index, on either engine. */
interface TermIndexes {
  /** SQLite's trigram index (indexedSearch). */
  indexed: IndexedTerm | null
  /** PostgreSQL's index of character pairs, for a rare term of two characters (readsPairs). */
  pairs: boolean
}

/** TermIndexes for the filters, SQLite's `indexed` as found already. */
async function termIndexes(
  ex: Executor,
  filters: LinkFilters,
  indexed: IndexedTerm | null,
): Promise<TermIndexes> {
  const pairs =
    isPostgres(ex) &&
    filters.q !== undefined &&
    !narrowedBeforeTheTerm(filters) &&
    (await readsPairs(ex, filters.q))
  return { indexed, pairs }
}

/** What a search page's statement is run with (or, compiled once, the placeholders for it). */
interface SearchPageValues {
  userId: string
  /** The FTS5 query of the term's links (IndexedTerm). */
  query: string
  afterTime: string
  afterId: string
  /** The page's size plus one: the extra row only tells whether there is a next page. */
  limit: string | number
}

/** The search rows' copies of a link's id and owner (migration 0115_link_search_index_only). */
const SEARCH_ROW: LinkColumns = {
  id: 'link_search_rows.link_id',
  userId: 'link_search_rows.user_id',
  organizationId: 'link_search_rows.organization_id',
}

/**
 * SQLite: a search page, its links' ids decided in the search rows alone — the trigram index finds
 * the matches, and each match's row of `link_search_rows` (read by its integer key) holds the
 * link's id, owner and creation time for the visibility, the filters on the owner and the pins,
 * and the page — so a search reads one small row per match and only the page's rows of links
 * (docs/decisions/0045-link-search-page-from-the-search-table.md); and, where LIKE tests the term
 * again (`like`), each visible match's link.
 */
function searchPageQuery(
  ex: Executor,
  values: SearchPageValues,
  filters: LinkFilters,
  withCursor: boolean,
  like: string | null = null,
) {
  const row = SEARCH_ROW
  const limit = sql<number>`${values.limit}`
  const conditions = [
    sql<boolean>`link_search_rows.id in (${ftsMatches(values.query)})`,
    visibleToIndexed(ex, values.userId, row),
    ...ownerConditions(filters, values.userId, row),
  ]
  if (like !== null) conditions.push(searchRowLike(like))
  if (filters.pinned === false) conditions.push(notPinnedBy(values.userId, SEARCH_ROW.id))
  const after = (table: string, id: string) =>
    sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.${id}`)}) < (${values.afterTime}, ${values.afterId})`
  if (withCursor) conditions.push(after('link_search_rows', 'link_id'))
  const ids = sql`select link_search_rows.link_id from link_search_rows where ${sql.join(conditions, sql` and `)} order by link_search_rows.created_at desc, link_search_rows.link_id desc limit ${limit}`
  let page = linksAsSeenBy(ex, values.userId).where(
    sql<boolean>`${sql.ref('links.id')} in (${ids})`,
  )
  if (withCursor) page = page.where(after('links', 'id'))
  return page.orderBy('links.created_at', 'desc').orderBy('links.id', 'desc').limit(limit)
}

const SEARCH_PAGE_VALUES = ['userId', 'query', 'limit'] as const

/**
 * The search page without a filter on the owner — the Links screen's search — of a term the index
 * decides, compiled once, with a cursor and without: building and compiling it cost as much as
 * running it (docs/decisions/0055-links-page-one-read-for-its-extras.md).
 */
function compiledSearchPages(filters: LinkFilters) {
  return {
    first: compiledOnce(SEARCH_PAGE_VALUES, (ex, p) =>
      searchPageQuery(ex, { ...p, afterTime: '', afterId: '' }, filters, false),
    ),
    after: compiledOnce([...SEARCH_PAGE_VALUES, 'afterTime', 'afterId'], (ex, p) =>
      searchPageQuery(ex, p, filters, true),
    ),
  }
}

/** The pages of all links and of those the person did not pin (which the palette asks for). */
const selectSearchPage = {
  all: compiledSearchPages({}),
  unpinned: compiledSearchPages({ pinned: false }),
}

async function searchPage(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  indexed: IndexedTerm,
  window: PageWindow,
): Promise<VisibleLink[]> {
  assertIssuedCursor(window)
  if (indexed.query === null) return []
  const values = {
    userId,
    query: indexed.query,
    afterTime: window.after?.[0] ?? '',
    afterId: window.after?.[1] ?? '',
    limit: window.limit + 1,
  }
  const withCursor = window.after !== null
  const compiled =
    ownerConditions(filters, userId, SEARCH_ROW).length === 0 && indexed.like === null
      ? selectSearchPage[filters.pinned === false ? 'unpinned' : 'all']
      : null
  const rows =
    compiled === null
      ? await searchPageQuery(ex, values, filters, withCursor, indexed.like).execute()
      : await (withCursor ? compiled.after : compiled.first)(ex, values)
  return rows.map(asVisible)
}

/** True where the search row's link matches the LIKE pattern (IndexedTerm's `like`). */
function searchRowLike(pattern: string): RawBuilder<boolean> {
  const columns = ['found.title', 'found.url', 'found.slug']
  return sql<boolean>`exists (select 1 from links as found
    where found.id = link_search_rows.link_id and ${anyLike(columns, pattern)})`
}

/**
 * The visible links matching the filters (all but the collection and the order); the term's links
 * found by `search` (matchesSearch), or each visible link tested.
 */
function filteredLinks(ex: Executor, userId: string, filters: LinkFilters, search: TermIndexes) {
  let query = visibleLinks(ex, userId)
  // A tag's links as an `in` list, which SQLite reads by the tag's index and then each link by its
  // key; a test of each visible link for the tag would walk all of them.
  if (filters.tagId !== undefined) {
    const tagged = ex
      .selectFrom('link_tags')
      .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
      .select('link_tags.link_id')
      .where('link_tags.tag_id', '=', filters.tagId)
      .where('tags.user_id', '=', userId)
    query = query.where('links.id', 'in', tagged)
  }
  // On SQLite the links of a pin, a tag, a team's shares or a collection are each tested for the
  // term, not read from the term's matches, which may be most links of the instance.
  const pinned = filters.pinned === true
  if (filters.q !== undefined)
    query = query.where(
      narrowedBeforeTheTerm(filters) && !isPostgres(ex)
        ? sql<boolean>`${containsTest(filters.q)}`
        : matchesSearch(ex, filters.q, search),
    )
  for (const condition of ownerConditions(filters, userId, LINK_COLUMNS))
    query = query.where(condition)
  if (filters.scope === 'shared') query = query.where(sharedWithTeamsOf(ex, userId))
  if (pinned) {
    const pins = ex
      .selectFrom('link_pins')
      .select('link_pins.link_id')
      .where('user_id', '=', userId)
    query = query.where('links.id', 'in', pins)
  }
  if (filters.pinned === false) query = query.where(notPinnedBy(userId))
  return query
}

/** A filter whose links are read first, and are few beside a common term's matches. */
function narrowedBeforeTheTerm(filters: LinkFilters): boolean {
  return (
    filters.pinned === true ||
    filters.tagId !== undefined ||
    filters.scope === 'shared' ||
    filters.collectionId !== undefined
  )
}

/**
 * The filters on a link's owner as conditions on `row`'s columns (the links' own, or the search
 * rows' copies): `owner: personal` keeps the user's own links, `owner: organization` and
 * `organizationId` the links of their organizations — never a link someone else shared with one of
 * their teams; `reachable` (an API token's boundary) keeps personal links, the user's or shared
 * with their teams, and those of the organizations it names.
 */
function ownerConditions(
  filters: LinkFilters,
  userId: string,
  row: Pick<LinkColumns, 'userId' | 'organizationId'>,
): RawBuilder<boolean>[] {
  const [user, organization] = [sql.ref(row.userId), sql.ref(row.organizationId)]
  const memberships = organizationIdsOf(userId)
  const conditions: RawBuilder<boolean>[] = []
  if (filters.organizationId !== undefined)
    conditions.push(
      sql<boolean>`(${organization} = ${filters.organizationId} and ${organization} in (${memberships}))`,
    )
  if (filters.owner === 'personal')
    conditions.push(sql<boolean>`(${user} = ${userId} and ${organization} is null)`)
  if (filters.owner === 'organization')
    conditions.push(sql<boolean>`${organization} in (${memberships})`)
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
 * No filter but the term and the owner's: a count the search rows (SQLite) or the owners' indexes
 * (PostgreSQL) answer alone.
 */
function onlyOwnerFilters(filters: LinkFilters): boolean {
  return (
    filters.tagId === undefined &&
    filters.scope === undefined &&
    filters.pinned === undefined &&
    filters.collectionId === undefined
  )
}

/**
 * SQLite: the visible matches of a term counted up to `most` + 1 in the order the trigram index
 * hands them over, each one's search row read by its key: the count stops there, where `links.id
 * in (matches)` would first collect every match of a term in most titles
 * (docs/decisions/0077-search-walks-the-newest-links-for-common-terms.md).
 */
async function countSearchMatches(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  indexed: IndexedTerm,
  most: number,
): Promise<number> {
  if (indexed.query === null) return 0
  const conditions = [
    visibleToIndexed(ex, userId, SEARCH_ROW),
    ...ownerConditions(filters, userId, SEARCH_ROW),
  ]
  if (indexed.like !== null) conditions.push(searchRowLike(indexed.like))
  const matches = sql`select 1 from links_fts
    join link_search_rows on link_search_rows.id = links_fts.rowid
    where links_fts match ${indexed.query} and ${sql.join(conditions, sql` and `)}
    limit ${most + 1}`
  const row = await ex
    .selectFrom(sql`(${matches})`.as('matches'))
    .select(sql<number>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

/**
 * How many visible links match the filters, up to `most` + 1 where it can stop there: the list's
 * own statement counted, so it reads the same owners' indexes (visibleToIndexed) and never more
 * rows than the person can see. On SQLite it stops once past `most`: the count runs on the event
 * loop's thread, and a term in most links would have it read them all. On PostgreSQL a count
 * without a term, or with a common one or one of one character, is read owner by owner and stops
 * there too; the others count every match: with a limit on the general statement its planner reads
 * the links table from its start until it has found enough, all of it where the person's links come
 * last.
 */
export async function countVisibleLinks(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  most: number,
): Promise<number> {
  const indexed = await indexedSearch(ex, filters)
  if (onlyOwnerFilters(filters)) {
    // A common term that LIKE tests again is counted by the general statement: the index's matches
    // would each have their link read.
    const byIndex =
      indexed !== null && (indexed.like === null || !(await isCommonTerm(ex, indexed)))
    if (byIndex) return countSearchMatches(ex, userId, filters, indexed, most)
    const counted = isPostgres(ex) ? await ownersCount(ex, userId, filters, most) : null
    if (counted !== null) return counted
  }
  let query = filteredLinks(ex, userId, filters, await termIndexes(ex, filters, indexed))
  if (filters.collectionId !== undefined) query = inCollection(query, userId, filters.collectionId)
  const matching = query.clearSelect().select('links.id')
  const counted = isPostgres(ex) ? matching : matching.limit(most + 1)
  const row = await ex
    .selectFrom(counted.as('counted'))
    .select(sql<number | string>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  // PostgreSQL answers count(*) as bigint text.
  return Number(row.total)
}

/**
 * A search's page read owner by owner — walked on SQLite, filtered on PostgreSQL — or null where
 * it is not read so (search-walk.repo.ts, search-by-owner.repo.ts).
 */
function searchPageByOwner(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  q: string,
  indexed: IndexedTerm | null,
  window: PageWindow,
  order: OwnersOrder = 'newest',
): Promise<VisibleLink[] | null> {
  return isPostgres(ex)
    ? ownersSearchPage(ex, userId, filters, q, window, order)
    : walkedSearchPage(ex, userId, filters, { q, indexed }, window, order)
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
  const newestOfAll =
    filters.tagId === undefined &&
    filters.scope === undefined &&
    filters.collectionId === undefined &&
    filters.mostClicked === undefined
  const newestOnly = newestOfAll && filters.pinned === undefined
  // The Links screen's pages, with a search or without, have statements of their own: the general
  // statement is built only for the other filters and orders. A search's page — also the page of
  // the links not pinned, which the screen and the palette ask for — is read owner by owner where
  // its term is common: walked on SQLite (search-walk.repo.ts), filtered on PostgreSQL
  // (search-by-owner.repo.ts), as is a term of one character on PostgreSQL; else from the trigram
  // index, a term of one or two characters too (SQLite: term-index.repo.ts; PostgreSQL: two
  // characters from its index of character pairs).
  if (filters.mostClicked && filters.collectionId === undefined)
    return mostClicked(ex, userId, filters, window)
  const newestUnpinned = newestOfAll && filters.pinned !== true
  // A term of one character is walked before the index is asked: a common letter fills the page
  // in the walk's first round, and only a rare one, which the walk gives up on, pays the look-ups
  // of the trigrams that begin with it
  // (docs/decisions/0089-one-character-terms-from-the-trigram-vocabulary.md).
  const walkFirst = newestUnpinned && filters.q !== undefined && [...filters.q].length === 1
  let indexed = walkFirst ? null : await indexedSearch(ex, filters)
  if (newestUnpinned && filters.q !== undefined) {
    const byOwner = await searchPageByOwner(ex, userId, filters, filters.q, indexed, window)
    if (byOwner !== null) return byOwner
    if (walkFirst) indexed = await indexedSearch(ex, filters)
  }
  if (newestUnpinned && indexed !== null) return searchPage(ex, userId, filters, indexed, window)
  if (newestOnly && filters.q === undefined) {
    const owners = await pageOwners(ex, userId, filters)
    if (owners !== null) return (await ownersPage(ex, owners, window)).map(asVisible)
  }
  const query = filteredLinks(ex, userId, filters, await termIndexes(ex, filters, indexed))
  if (filters.collectionId !== undefined)
    return (await inCollectionOrder(ex, query, userId, filters.collectionId, window)).map(
      (row) => ({
        ...asVisible(row),
        position_sort: row.position_sort,
      }),
    )
  return (await newestFirst(query, window, 'links').execute()).map(asVisible)
}

/**
 * Most clicked in the last 30 days first, then the newest id: keyset over (recent_clicks, id). The
 * Links screen's pages — all links or those not pinned, with a search or without — are read owner
 * by owner from the owners' indexes over the count, as its newest-first pages are from theirs over
 * the time; the others, and a rare term's, from the filter's links, ordered by their counts.
 */
async function mostClicked(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  window: PageWindow,
): Promise<VisibleLink[]> {
  const byOwner = !narrowedBeforeTheTerm(filters)
  const indexed = await indexedSearch(ex, filters)
  if (byOwner && filters.q !== undefined) {
    const page = await searchPageByOwner(ex, userId, filters, filters.q, indexed, window, 'clicks')
    if (page !== null) return page
  }
  const owners = byOwner && filters.q === undefined ? await pageOwners(ex, userId, filters) : null
  if (owners !== null) {
    const rows =
      filters.pinned === false
        ? await filteredOwnersPage(ex, owners, window, notPinnedBy(userId), 'clicks')
        : await ownersPage(ex, owners, window, { order: 'clicks' })
    return rows.map(asPageLink)
  }
  assertOrderCursor(window, 'clicks')
  const search = await termIndexes(ex, filters, indexed)
  const ordered = keyset(
    filteredLinks(ex, userId, filters, search).select('links.recent_clicks as clicks_sort'),
    window,
    { column: 'recent_clicks', table: 'links', direction: 'desc' },
  )
  return (await ordered.execute()).map(asPageLink)
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
