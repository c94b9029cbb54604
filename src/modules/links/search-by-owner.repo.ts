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
import type { VisibleLink } from './visible.repo.js'

/** A term in at least this share of the links (by the statistics' sample) may be common. */
const COMMON_SHARE = 0.05

/** A sample of fewer values says too little: its terms are read from the trigram index. */
const LEAST_SAMPLED = 20

/** How long one read of the statistics is used, in milliseconds. */
const STATISTICS_KEPT_MS = 60_000

/** PostgreSQL's sample of `links.search_lower` (pg_stats): its common values and the others. */
interface SearchTextSample {
  common: { value: string; share: number }[]
  /** The histogram's bounds: a sample of the values that are not common. */
  others: string[]
  /** The share of the links whose value is among the others. */
  othersShare: number
}

interface StatisticsRow {
  links: number
  common_values: string[] | null
  common_shares: number[] | null
  others: string[] | null
  null_share: number | null
}

/** What PostgreSQL's statistics say of the links: how many, and the sample of their text. */
interface LinkStatistics {
  links: number
  sample: SearchTextSample | null
}

const kept = new WeakMap<Executor, { readAt: number; statistics: LinkStatistics }>()

/** The links' statistics, read at most once a minute per database handle. */
async function linkStatistics(ex: Executor): Promise<LinkStatistics> {
  const last = kept.get(ex)
  const now = performance.now()
  if (last !== undefined && now - last.readAt < STATISTICS_KEPT_MS) return last.statistics
  const { rows } = await sql<StatisticsRow>`select
      greatest(c.reltuples, 0)::float8 as links,
      s.most_common_vals::text::text[] as common_values,
      s.most_common_freqs as common_shares,
      s.histogram_bounds::text::text[] as others,
      s.null_frac as null_share
    from pg_class c
    left join pg_stats s on s.schemaname = current_schema() and s.tablename = 'links'
      and s.attname = 'search_lower'
    where c.oid = 'links'::regclass`.execute(ex)
  const row = rows[0]
  const statistics = { links: row?.links ?? 0, sample: row === undefined ? null : sampleOf(row) }
  kept.set(ex, { readAt: now, statistics })
  return statistics
}

function sampleOf(row: StatisticsRow): SearchTextSample | null {
  const values = row.common_values ?? []
  const shares = row.common_shares ?? []
  const common = values.map((value, i) => ({ value, share: shares[i] ?? 0 }))
  const others = row.others ?? []
  if (common.length + others.length < LEAST_SAMPLED) return null
  const commonShare = shares.reduce((sum, share) => sum + share, 0)
  const othersShare = Math.max(0, 1 - commonShare - (row.null_share ?? 0))
  return { common, others, othersShare }
}

/** The share of the links whose searched text contains the (lower-cased) term, by the sample. */
export function sampledShare(sample: SearchTextSample, term: string): number {
  const inCommon = sample.common
    .filter((entry) => entry.value.includes(term))
    .reduce((sum, entry) => sum + entry.share, 0)
  const inOthers =
    sample.others.length === 0
      ? 0
      : sample.others.filter((value) => value.includes(term)).length / sample.others.length
  return inCommon + sample.othersShare * inOthers
}

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
  if (q === undefined || [...q].length < PAIR) return true
  if ([...q].length === PAIR) return !rareEnoughForPairs(statistics, q)
  if (statistics.sample === null) return false
  const share = sampledShare(statistics.sample, q.toLowerCase())
  return share >= COMMON_SHARE && share * statistics.links >= COMMON_MATCHES
}

/** A page's links and the one more that tells whether a next page follows. */
const PAGE_WITH_NEXT = 51

/**
 * Whether the statistics' sample expects the two-character term in few enough links that reading
 * them all from the pairs index costs less than a walk owner by owner: the index hands over every
 * match (about 1 µs each with the page's ordering), the walk tests about PAGE_WITH_NEXT / share
 * links — equal where the matches are √(PAGE_WITH_NEXT × links): 2,258 at 100,000 links, where a
 * term in 3,970 took 4.4 ms from the index. Without a sample, or for a term with a line feed
 * (which the searched text's joins would hold), no.
 */
function rareEnoughForPairs(statistics: LinkStatistics, q: string): boolean {
  if (statistics.sample === null || q.includes('\n')) return false
  const expected = sampledShare(statistics.sample, q.toLowerCase()) * statistics.links
  return expected < Math.sqrt(PAGE_WITH_NEXT * statistics.links)
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
