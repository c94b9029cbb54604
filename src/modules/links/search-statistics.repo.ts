/**
 * PostgreSQL: what its own statistics say of the links' searched text (the lower-cased copy of
 * 0120_link_search_stored_lower), from which the search chooses how to read a term
 * (search-by-owner.repo.ts): how many links there are, the sample of the text that `pg_stats`
 * keeps for `links.search_lower`, and the pairs of characters in the most links, which ANALYZE
 * counts for the pairs index (0124_link_search_pairs) in a sample of 300 rows per unit of the
 * statistics target. Read at most once a minute per database handle; the service keeps the
 * statistics current itself (docs/decisions/0070-planner-statistics-kept-by-the-service.md).
 */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

/** A sample of fewer values says too little: its terms are read from the trigram index. */
const LEAST_SAMPLED = 20

/** How long one read of the statistics is used, in milliseconds. */
const STATISTICS_KEPT_MS = 60_000

/** PostgreSQL's sample of `links.search_lower` (pg_stats): its common values and the others. */
export interface SearchTextSample {
  common: { value: string; share: number }[]
  /** The histogram's bounds: a sample of the values that are not common. */
  others: string[]
  /** The share of the links whose value is among the others. */
  othersShare: number
}

/** What PostgreSQL's statistics say of the links. */
export interface LinkStatistics {
  links: number
  sample: SearchTextSample | null
  /**
   * The pairs index's most common elements (pg_stats `most_common_elems`): the pairs in the most
   * links, each with the share of the links that hold it; every pair not listed is in fewer.
   */
  pairs: Map<string, number> | null
}

interface StatisticsRow {
  links: number
  common_values: string[] | null
  common_shares: number[] | null
  others: string[] | null
  null_share: number | null
  common_pairs: string[] | null
  /** The pairs' shares, then the least and the greatest of them, then the share of nulls. */
  pair_shares: number[] | null
}

const kept = new WeakMap<Executor, { readAt: number; statistics: LinkStatistics }>()

/** The links' statistics, read at most once a minute per database handle. */
export async function linkStatistics(ex: Executor): Promise<LinkStatistics> {
  const last = kept.get(ex)
  const now = performance.now()
  if (last !== undefined && now - last.readAt < STATISTICS_KEPT_MS) return last.statistics
  const { rows } = await sql<StatisticsRow>`select
      greatest(c.reltuples, 0)::float8 as links,
      s.most_common_vals::text::text[] as common_values,
      s.most_common_freqs as common_shares,
      s.histogram_bounds::text::text[] as others,
      s.null_frac as null_share,
      p.most_common_elems::text::text[] as common_pairs,
      p.most_common_elem_freqs as pair_shares
    from pg_class c
    left join pg_stats s on s.schemaname = current_schema() and s.tablename = 'links'
      and s.attname = 'search_lower'
    left join pg_stats p on p.schemaname = current_schema()
      and p.tablename = 'links_search_pairs_idx' and p.attname = 'link_search_pairs'
    where c.oid = 'links'::regclass`.execute(ex)
  const row = rows[0]
  const statistics: LinkStatistics = {
    links: row?.links ?? 0,
    sample: row === undefined ? null : sampleOf(row),
    pairs: row === undefined ? null : pairSharesOf(row.common_pairs, row.pair_shares),
  }
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

/** The pairs index's statistics as LinkStatistics' `pairs`; null before its first analysis. */
export function pairSharesOf(
  pairs: string[] | null,
  shares: number[] | null,
): Map<string, number> | null {
  if (pairs === null || shares === null || shares.length < pairs.length) return null
  return new Map(pairs.map((pair, i) => [pair, shares[i]!]))
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
