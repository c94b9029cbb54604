/**
 * SQLite: how the links' trigram index is asked for a search term's links, and whether the term
 * is common (in COMMON_MATCHES links or more). A term of three characters or more is its own FTS5
 * phrase. A shorter term is below the trigram, but every place it stands in a title, URL or slug
 * begins one of the index's trigrams (the index pads each column with two U+0001; migrations
 * 0123_link_search_short_terms and 0125_link_search_one_character_terms): its links are those of
 * the trigrams that begin with it, which the index's vocabulary (`links_fts_terms`) lists in
 * order, one look-up each (docs/decisions/0087-two-character-terms-from-the-trigram-vocabulary.md,
 * 0089-one-character-terms-from-the-trigram-vocabulary.md). A term that begins more than
 * MOST_TRIGRAMS of them (a common letter does) is tested link by link, as the walk does.
 */
import { sql } from 'kysely'
import { compiledOnce } from '../../db/precompiled.js'
import type { Executor } from '../../db/schema.js'
import { containing, ftsPhrase } from '../../db/text-search.js'
import { COMMON_MATCHES, TRIGRAM } from './search-terms.repo.js'

/** What the trigram index is asked for a term. */
export interface IndexedTerm {
  /** An FTS5 query of `links_fts`; null where no trigram begins with the term: no link holds it. */
  query: string | null
  /**
   * A LIKE pattern each link found must match too (`containing`), or null: the index decides.
   * The index folds case as Unicode does, a two-character term's search as LIKE does: they differ
   * for the two characters beyond ASCII that the index folds into ASCII (FOLDED_INTO_ASCII).
   */
  like: string | null
}

/** The most trigrams a short term is looked up by (each a look-up of about 30 µs). */
const MOST_TRIGRAMS = 32

/**
 * The ASCII letters that SQLite's FTS5 folds a character beyond ASCII into: the Kelvin sign
 * (U+212A) into "k", the long s (U+017F) into "s" (term-index.sqlite.test.ts holds SQLite to it,
 * and to folding every caseless character into itself).
 * A term with neither finds in the index exactly what LIKE finds.
 */
const FOLDED_INTO_ASCII = /[ks]/

/** The greatest character: a prefix followed by it sorts after every text that begins with it. */
const LAST_CHARACTER = '\u{10FFFF}'

/**
 * The index's trigrams from `from` to `to`, in order, at most `limit`: each found by one look-up
 * for the first trigram after the one before (a trigram followed by U+0001 sorts after it and
 * before any other), where a scan of the range would read every place each trigram stands.
 */
const selectTrigrams = compiledOnce(['from', 'to', 'limit'], (ex, p) => {
  const first = (after: ReturnType<typeof sql>) =>
    sql`(select term from links_fts_terms where term >= ${after} and term <= ${p.to} limit 1)`
  // Inside a subquery: the driver takes a statement that begins with `select` for a read.
  const trigrams = sql`(with recursive found(term) as (
      select ${first(sql`${p.from}`)}
      union all
      select ${first(sql`found.term || char(1)`)} from found where found.term is not null)
    select term from found where term is not null limit ${p.limit})`
  return ex.selectFrom(trigrams.as('trigrams')).select(sql<string>`term`.as('term'))
})

const selectMatchCount = compiledOnce(['query'], (ex, p) => {
  const limit = sql.lit(COMMON_MATCHES)
  const matches = sql`select rowid from links_fts where links_fts match ${p.query} limit ${limit}`
  return ex.selectFrom(sql`(${matches})`.as('matches')).select(sql<number>`count(*)`.as('n'))
})

/**
 * Whether the index finds the term in COMMON_MATCHES links or more, seen by the person or not
 * (counted up to there).
 */
export async function isCommonTerm(ex: Executor, indexed: IndexedTerm): Promise<boolean> {
  if (indexed.query === null) return false
  const [row] = await selectMatchCount(ex, { query: indexed.query })
  return row !== undefined && row.n >= COMMON_MATCHES
}

/** The character SQLite's FTS5 indexes the noncharacters U+FFFE and U+FFFF as. */
const REPLACEMENT_CHARACTER = '\uFFFD'

/**
 * The term as the index has it where the index folds it as LIKE does: ASCII lower-cased, every
 * other character one without case (a digit, a sign, a CJK character) and not the replacement
 * character. Null for any other: the index's Unicode folding of it might not be JavaScript's.
 */
function foldedAsLike(term: string): string | null {
  for (const character of term) {
    if (character.charCodeAt(0) < 0x80) continue
    const caseless = character.toLowerCase() === character && character.toUpperCase() === character
    if (!caseless || character === REPLACEMENT_CHARACTER) return null
  }
  return term.toLowerCase()
}

/** The short term's trigrams as one FTS5 query (`a OR b …`); undefined: too many. */
async function shortTermQuery(ex: Executor, folded: string): Promise<string | null | undefined> {
  const trigrams = await selectTrigrams(ex, {
    from: folded,
    to: folded + LAST_CHARACTER,
    limit: MOST_TRIGRAMS + 1,
  })
  if (trigrams.length > MOST_TRIGRAMS) return undefined
  if (trigrams.length === 0) return null
  return trigrams.map((trigram) => ftsPhrase(trigram.term)).join(' OR ')
}

/**
 * How the index answers `q`: the phrase from three characters on; for one or two characters the
 * trigrams that begin with it. Null for a term holding a character with case beyond ASCII, or one
 * that begins more than MOST_TRIGRAMS trigrams.
 */
export async function indexedTerm(ex: Executor, q: string): Promise<IndexedTerm | null> {
  if ([...q].length >= TRIGRAM) return { query: ftsPhrase(q), like: null }
  const folded = foldedAsLike(q)
  if (folded === null) return null
  const query = await shortTermQuery(ex, folded)
  if (query === undefined) return null
  return { query, like: FOLDED_INTO_ASCII.test(folded) ? containing(q) : null }
}
