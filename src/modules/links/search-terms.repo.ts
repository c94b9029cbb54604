/**
 * What a search term matches, on either engine: the test of a link's title, URL and slug that the
 * Links list's search means — PostgreSQL's lower-cased copy of the three, SQLite's LIKE and its
 * trigram index — and the test of a link the person did not pin, which the screen lists apart.
 * The statements that read a search's page (list.repo.ts, search-walk.repo.ts,
 * search-by-owner.repo.ts) build on these.
 */
import { sql, type RawBuilder } from 'kysely'
import {
  anyContains,
  anyLike,
  containing,
  ftsPhrase,
  loweredContains,
} from '../../db/text-search.js'

/** The shortest search the trigram index answers (migration 0065_link_search). */
export const TRIGRAM = 3

/** The length of a term PostgreSQL's index of character pairs answers (migration 0124). */
export const PAIR = 2

/**
 * A term with at least this many matches among all links is common: its page is read newest
 * first, owner by owner (walked on SQLite, filtered on PostgreSQL), and a rarer one's from the
 * trigram index, which costs less for it. SQLite counts the matches up to it (about 0.2 ms);
 * PostgreSQL estimates them from its statistics.
 */
export const COMMON_MATCHES = 1000

/**
 * True where the link's title, URL or slug contains `q`, ignoring case, on PostgreSQL: its stored
 * lower-cased copy of the three, one line each (migration 0120_link_search_stored_lower). A term
 * without a line feed — every term the API takes — is in those lines exactly when it is in one
 * of the three; one with a line feed is compared field by field.
 */
export function postgresContains(q: string): RawBuilder<boolean> {
  return q.includes('\n')
    ? anyContains(['links.title', 'links.url', 'links.slug'], q)
    : loweredContains(sql.ref('links.search_lower'), q)
}

/**
 * True where the link's searched text holds the two-character term `q` on PostgreSQL: the term is
 * one of the text's pairs of neighbouring characters, which the pairs index answers (migration
 * 0124_link_search_pairs) — the very test postgresContains makes, read from an index. Only for a
 * statement that reads the term's links from it: computed for a link read otherwise, the pairs
 * cost about 10 µs, LIKE a fraction of one.
 */
export function postgresPairTest(q: string): RawBuilder<boolean> {
  return sql<boolean>`link_search_pairs(links.search_lower) @> array[lower(${q}::text)]`
}

/** Any non-ASCII character (GLOB's class of everything but U+0001–U+007F). */
const NON_ASCII = sql`'*[^' || char(1) || '-' || char(127) || ']*'`

/**
 * SQLite: whether the link contains the term as the list's search means it. LIKE ignoring ASCII
 * case for a short term; from 3 characters on, the trigram index's phrase (Unicode's case
 * folding), whose matches are LIKE's and, in a text with other than ASCII, more — "Ä" for "ä" —
 * which the index itself is asked about for that link.
 */
export function searchTest(short: boolean, pattern: string, phrase: string): RawBuilder<number> {
  const like = anyLike(['links.title', 'links.url', 'links.slug'], pattern)
  if (short) return sql<number>`${like}`
  const text = sql`coalesce(links.title, '') || links.url || coalesce(links.slug, '')`
  const searchRow = sql`select id from link_search_rows where link_id = links.id`
  const indexed = sql`exists (select 1 from links_fts
    where links_fts match ${phrase} and links_fts.rowid = (${searchRow}))`
  return sql<number>`(${like} or (${text} glob ${NON_ASCII} and ${indexed}))`
}

/** searchTest for the term itself. */
export function containsTest(q: string): RawBuilder<number> {
  return searchTest([...q].length < TRIGRAM, containing(q), ftsPhrase(q))
}

/**
 * True for a link `userId` did not pin (the Links screen lists the pinned ones apart); `linkId`
 * names the link's id (the links' own, or a search row's copy).
 */
export function notPinnedBy(userId: string, linkId = 'links.id'): RawBuilder<boolean> {
  return sql<boolean>`not exists (select 1 from link_pins
    where link_pins.user_id = ${userId} and link_pins.link_id = ${sql.ref(linkId)})`
}
