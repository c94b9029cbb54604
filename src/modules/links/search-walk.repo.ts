/**
 * SQLite: a search whose term is in a good part of the links, answered by walking the person's
 * newest visible links and testing each, instead of reading every match. A term in most titles
 * (a company's name, "wiki") has tens of thousands of matches at 100,000 links, and the trigram
 * index hands them over in no useful order: ordering them all to keep the newest 51 reads every
 * one, and SQLite does it on the event loop's thread, holding every other request meanwhile.
 * Walked newest first, the page is full after about 51 links. A term the trigram index does not
 * answer (term-index.repo.ts: one of one character, or of two holding a letter with case beyond
 * ASCII or beginning too many trigrams) is walked too: otherwise every visible link is tested.
 *
 * The walk is exact: the newest links — or the most clicked — after the cursor, in the page's
 * order, each tested; a page full of links that pass is the page a full read gives, and so is a
 * walk that reached the last visible link. Where the links it tests pass too rarely to fill the
 * page within MOST_WALKED, it gives up, and the caller reads the page the other way
 * (docs/decisions/0077-search-walks-the-newest-links-for-common-terms.md).
 */
import { sql } from 'kysely'
import type { PageWindow } from '../../db/keyset.js'
import type { Executor } from '../../db/schema.js'
import { containing, ftsPhrase } from '../../db/text-search.js'
import type { LinkFilters } from './link-filters.js'
import {
  asPageLink,
  ownersPage,
  pageOwners,
  type OwnersOrder,
  type OwnersPageTest,
} from './owners-page.repo.js'
import { notPinnedBy, searchTest, TRIGRAM } from './search-terms.repo.js'
import { isCommonTerm, type IndexedTerm } from './term-index.repo.js'
import type { VisibleLink } from './visible.repo.js'

/** The walk's first round tests this many of the newest links; later ones a power of two more. */
const FIRST_ROUND = 128

/** The most links one walk tests (about 2 µs each); it gives up before, once it expects to. */
const MOST_WALKED = 2048

/**
 * How many links the next round tests: those the page still needs at the rate found so far (one
 * found at least, and a quarter more), as a power of two — each size is a statement of its own —
 * or 0 where that would pass MOST_WALKED.
 */
function nextRound(walked: number, found: number, needed: number): number {
  const expected = Math.ceil((needed * walked * 1.25) / Math.max(found, 1))
  const size = Math.max(FIRST_ROUND, 2 ** Math.ceil(Math.log2(expected)))
  return walked + size > MOST_WALKED ? 0 : size
}

/**
 * The page of links containing `q` — of those the person did not pin, with `pinned: false` — walked
 * (see above); null where it is not walked — a term the trigram index finds in fewer than
 * COMMON_MATCHES links (`search.indexed`), a person whose page is not read owner by owner — or
 * the walk gave up.
 */
export async function walkedSearchPage(
  ex: Executor,
  userId: string,
  filters: LinkFilters,
  search: { q: string; indexed: IndexedTerm | null },
  window: PageWindow,
  order: OwnersOrder = 'newest',
): Promise<VisibleLink[] | null> {
  const { q, indexed } = search
  if (indexed !== null && !(await isCommonTerm(ex, indexed))) return null
  const short = [...q].length < TRIGRAM
  const owners = await pageOwners(ex, userId, filters)
  if (owners === null) return null
  const unpinned = filters.pinned === false
  const test: OwnersPageTest = {
    shape: `${short ? 'like' : 'phrase'}${unpinned ? ':unpinned' : ''}`,
    names: short ? ['pattern'] : ['pattern', 'phrase'],
    build: (_ex, p) => {
      const contains = searchTest(short, p.pattern!, p.phrase!)
      return unpinned ? sql<number>`(${contains} and ${notPinnedBy(p.userId!)})` : contains
    },
    values: { pattern: containing(q), ...(!short && { phrase: ftsPhrase(q) }) },
  }
  const found: VisibleLink[] = []
  let after = window.after
  let walked = 0
  for (let size = FIRST_ROUND; size > 0;) {
    const rows = await ownersPage(ex, owners, { limit: size - 1, after }, { test, order })
    for (const row of rows) {
      if (!row.passes) continue
      found.push(asPageLink(row))
      if (found.length > window.limit) return found
    }
    // Every visible link after the cursor was tested.
    if (rows.length < size) return found
    walked += rows.length
    const last = rows.at(-1)!
    after = [order === 'clicks' ? String(last.clicks_sort) : last.created_at, last.id]
    size = nextRound(walked, found.length, window.limit + 1 - found.length)
  }
  return null
}
