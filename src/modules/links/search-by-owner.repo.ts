/**
 * PostgreSQL: a search whose term is in a good part of the links, or of one character, is read
 * owner by owner (owners-page.repo.ts filteredOwnersPage) instead of from an index of the
 * searched text — the trigram index, or for a term of two characters the index of character
 * pairs (search-terms.repo.ts postgresPairTest). An index hands a common term's matches over in no
 * useful order — `handbook` in 99,751 of 100,000 titles — and ordering them all to keep the newest
 * 51 reads every one; read newest first from each owner's index, the page is full after about 51
 * links. The statement is planned for its term, so for each owner PostgreSQL still picks the
 * trigram index where the term is rare among that owner's links. Which way a term goes is decided
 * by PostgreSQL's own statistics: how many links there are, and the share of its sample of the
 * searched text that holds the term. On an instance of fewer than a thousand links every search
 * reads the trigram index, or tests each link for a shorter term, which costs less there
 * (docs/decisions/0079-postgresql-common-terms-read-owner-by-owner.md).
 */
import { sql } from 'kysely'
import type { PageWindow } from '../../db/keyset.js'
import type { Executor } from '../../db/schema.js'
import type { LinkFilters } from './link-filters.js'
import {
  asPageLink,
  countOwnersLinks,
  filteredOwnersPage,
  pageOwners,
  type OwnersOrder,
} from './owners-page.repo.js'
import { COMMON_MATCHES, notPinnedBy, PAIR, postgresContains } from './search-terms.repo.js'
import { linkStatistics, sampledShare, type LinkStatistics } from './search-statistics.repo.js'
import type { VisibleLink } from './visible.repo.js'

/** A term in at least this share of the links (by the statistics' sample) may be common. */
const COMMON_SHARE = 0.05

/**
 * Whether a search for `q` (a count without a term: undefined) is read owner by owner: on an
 * instance of COMMON_MATCHES links or more, for a term of one character, or none, for one of two
 * characters not read from the pairs index (readsPairs), and for a longer term the statistics'
 * sample expects in COMMON_SHARE of the links and in COMMON_MATCHES of them (as SQLite walks a
 * term with that many matches). Below, reading the matches and ordering them costs less than the
 * owners' statement.
 */
async function readsOwnerByOwner(ex: Executor, q: string | undefined): Promise<boolean> {
  const statistics = await linkStatistics(ex)
  if (statistics.links < COMMON_MATCHES) return false
  const length = q === undefined ? 0 : [...q].length
  if (q === undefined || length < PAIR) return true
  if (length === PAIR) return !rareEnoughForPairs(statistics, q)
  if (statistics.sample === null) return false
  const share = sampledShare(statistics.sample, q.toLowerCase())
  return share >= COMMON_SHARE && share * statistics.links >= COMMON_MATCHES
}

/** A page's links and the one more that tells whether a next page follows. */
const PAGE_WITH_NEXT = 51

/**
 * Whether the two-character term is in few enough links that reading them all from the pairs
 * index costs less than a walk owner by owner. The index hands over every match (about 1 µs each
 * with the page's ordering), the walk tests about PAGE_WITH_NEXT / share links: equal where the
 * matches are √(PAGE_WITH_NEXT × links), 2,258 at 100,000 links
 * (docs/decisions/0088-postgresql-two-character-terms-from-character-pairs.md). A pair the
 * statistics list in the most links is judged by its share; one they do not list is in fewer
 * links than those, and read from the index: its cost is bounded by theirs, where a walk for a
 * rare term tests every visible link. Not before the index's first analysis, nor for a term with
 * a line feed (which the searched text's joins would hold).
 */
function rareEnoughForPairs(statistics: LinkStatistics, q: string): boolean {
  if (statistics.pairs === null || q.includes('\n')) return false
  const share = statistics.pairs.get(q.toLowerCase())
  if (share === undefined) return true
  return share * statistics.links < Math.sqrt(PAGE_WITH_NEXT * statistics.links)
}

/**
 * Whether the links holding a two-character term are read from the pairs index
 * (postgresPairTest): on an instance of COMMON_MATCHES links or more, a term rare enough
 * (rareEnoughForPairs). A commoner one is read owner by owner, each link tested with LIKE, and on
 * a smaller instance LIKE tests the few links for less than the pairs index costs.
 */
export async function readsPairs(ex: Executor, q: string): Promise<boolean> {
  if ([...q].length !== PAIR) return false
  const statistics = await linkStatistics(ex)
  return statistics.links >= COMMON_MATCHES && rareEnoughForPairs(statistics, q)
}

/**
 * The page of links containing `q` — of those the person did not pin, with `pinned: false` — read
 * owner by owner (see above); null where it is not — a rare term, a person whose page is not read
 * owner by owner.
 */
export async function ownersSearchPage(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  q: string,
  window: PageWindow,
  order: OwnersOrder = 'newest',
): Promise<VisibleLink[] | null> {
  if (!(await readsOwnerByOwner(ex, q))) return null
  const owners = await pageOwners(ex, userId, filters)
  if (owners === null) return null
  const contains = postgresContains(q)
  const filter =
    filters.pinned === false ? sql<boolean>`(${contains} and ${notPinnedBy(userId)})` : contains
  return (await filteredOwnersPage(ex, owners, window, filter, order)).map(asPageLink)
}

/**
 * How many links the person sees that hold `q` (every one without a term), up to `most` + 1, read
 * owner by owner as the page is; null where they are not — a rare term, a person whose page is not
 * read owner by owner.
 */
export async function ownersCount(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  most: number,
): Promise<number | null> {
  const q = filters.q
  if (!(await readsOwnerByOwner(ex, q))) return null
  const owners = await pageOwners(ex, userId, filters)
  if (owners === null) return null
  return countOwnersLinks(ex, owners, most, q === undefined ? undefined : postgresContains(q))
}
