/**
 * An import file's bookmarks as read, held from the reading to the writing of their part: as text,
 * one string per part of WRITE_PART bookmarks, each turned back into objects only when its part is
 * written (and then let go). A 20,000-bookmark file held as objects kept 10–12 MB more of the heap
 * alive through the whole import, and the collector's margins and page pool over it raised the
 * server's peak by about 17 MiB (docs/decisions/0063-an-import-holds-its-file-as-text.md).
 */
import { WRITE_PART } from './batches.js'
import { Skip, type CleanBookmark, type SkipReason } from './candidate.js'
import { slugKey } from '../url.js'

/** How much of a bookmark's URL as written the report shows (characters). */
export const SHOWN_URL = 300

/** One bookmark of the file as read: cleaned into link columns, or why it cannot be one. */
export interface ReadBookmark {
  verdict: CleanBookmark | Skip
  /** The URL as written, cut to SHOWN_URL characters, for the report. */
  shownUrl: string | null
}

/**
 * A bookmark as text holds it: a skip's reason, message and URL as written; or the link's columns
 * and the URL as written, null when it is the link's URL as it is.
 */
type Held =
  | [kind: 0, reason: SkipReason, message: string, shownUrl: string | null]
  | [
      kind: 1,
      url: string,
      title: string | null,
      slug: string | null,
      tags: string[],
      forwardingEnabled: boolean,
      createdAt: string | null,
      shownUrl: string | null,
    ]

function hold({ verdict, shownUrl }: ReadBookmark): Held {
  if (verdict instanceof Skip) return [0, verdict.reason, verdict.message, shownUrl]
  const { url, title, slug, tags, forwardingEnabled, createdAt } = verdict
  const asWritten = shownUrl === url.slice(0, SHOWN_URL) ? null : shownUrl
  return [1, url, title, slug, tags, forwardingEnabled, createdAt, asWritten]
}

function revive(held: Held): ReadBookmark {
  if (held[0] === 0) return { verdict: new Skip(held[1], held[2]), shownUrl: held[3] }
  const [, url, title, slug, tags, forwardingEnabled, createdAt, asWritten] = held
  return {
    verdict: { url, title, slug, slugKey: slugKey(slug), tags, forwardingEnabled, createdAt },
    shownUrl: asWritten ?? url.slice(0, SHOWN_URL),
  }
}

/** The file's bookmarks in file order, held as text a part at a time. */
export class ReadParts {
  readonly #parts: string[] = []
  #filling: Held[] = []
  #count = 0

  /** How many bookmarks have been read. */
  get length(): number {
    return this.#count
  }

  push(bookmark: ReadBookmark): void {
    this.#filling.push(hold(bookmark))
    this.#count++
    if (this.#filling.length === WRITE_PART) this.#seal()
  }

  /** The part from `offset` (a multiple of WRITE_PART) as objects; its text is let go. */
  take(offset: number): ReadBookmark[] {
    const index = offset / WRITE_PART
    if (index === this.#parts.length && this.#filling.length > 0) this.#seal()
    const text = this.#parts[index]
    if (text === undefined || text === '') return []
    this.#parts[index] = ''
    return (JSON.parse(text) as Held[]).map(revive)
  }

  #seal(): void {
    this.#parts.push(JSON.stringify(this.#filling))
    this.#filling = []
  }
}
