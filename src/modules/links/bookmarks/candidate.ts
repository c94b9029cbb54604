/**
 * One bookmark read from an import file, before any rule is applied, and how it is made into the
 * columns of a link — or refused with the reason the import reports.
 */
import { isDisplayText } from '../../../lib/schema-types.js'
import { AppError } from '../../../errors.js'
import { normalizeLinkUrl, slugKey } from '../url.js'

export interface BookmarkCandidate {
  url: unknown
  title: unknown
  slug: unknown
  tags: unknown
  forwardingEnabled: unknown
  /**
   * When the bookmark was made: a bookmark file's ADD_DATE (Unix seconds), or a JSON export's
   * `created_at`.
   */
  createdAt?: unknown
  /** A bookmark file's folder path (`Work/Projects`): the collection the bookmark goes into. */
  folder?: string | null
}

export type SkipReason =
  'invalid_item' | 'invalid_url' | 'invalid_slug' | 'duplicate_url' | 'slug_taken'

export interface CleanBookmark {
  url: string
  title: string | null
  slug: string | null
  slugKey: string | null
  /** Tag names, cleaned, distinct ignoring case. */
  tags: string[]
  forwardingEnabled: boolean
  /**
   * ISO 8601 (ms), when the file says when the bookmark was made and the time is plausible; else
   * null (now).
   */
  createdAt: string | null
}

/**
 * The longest URL and title read from a file (characters, before cleaning): far above what a link
 * keeps (2048 once normalised, 200), so only a URL that could never be one is cut — and it is then
 * refused, never imported cut. Readers keep at most this much of each, so memory stays bounded.
 */
export const MAX_RAW_URL = 8192
export const MAX_RAW_TEXT = 4096

const SLUG = /^[A-Za-z0-9_-]{1,64}$/
const MAX_TITLE = 200
const MAX_TAG = 64
const MAX_TAGS = 50
/** What DisplayText refuses (control, format, separator characters, lone surrogates), as spaces. */
const UNSHOWABLE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu

/**
 * Free text from a file as the API stores it: unshowable characters become spaces, runs of white
 * space one space, trimmed, cut to the field's length (a long bookmark title is common and not a
 * reason to drop the bookmark). Empty → null.
 */
export function cleanText(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return null
  const text = value.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim()
  // Cut by characters (code points); a text no longer than the field in UTF-16 units fits as is.
  const kept = text.length <= maxLength ? text : [...text].slice(0, maxLength).join('').trim()
  return kept === '' || !isDisplayText(kept) ? null : kept
}

export class Skip {
  constructor(
    readonly reason: SkipReason,
    readonly message: string,
  ) {}
}

/** The bookmark as link columns, or why it cannot be one. */
export function cleanBookmark(candidate: BookmarkCandidate): CleanBookmark | Skip {
  if (typeof candidate.url !== 'string') return new Skip('invalid_url', 'has no URL')
  if (candidate.url.length > MAX_RAW_URL) return new Skip('invalid_url', 'URL is too long')
  let url: string
  try {
    url = normalizeLinkUrl(candidate.url.trim())
  } catch (error) {
    if (error instanceof AppError && Array.isArray(error.details))
      return new Skip('invalid_url', `URL ${error.details[0]?.message ?? 'is not valid'}`)
    throw error
  }
  let slug: string | null = null
  if (candidate.slug !== null && candidate.slug !== undefined) {
    if (typeof candidate.slug !== 'string' || !SLUG.test(candidate.slug)) {
      return new Skip('invalid_slug', 'slug must be 1–64 letters, digits, underscores or dashes')
    }
    slug = candidate.slug
  }
  const tags = new Map<string, string>()
  if (Array.isArray(candidate.tags)) {
    for (const raw of candidate.tags) {
      const name = cleanText(raw, MAX_TAG)
      if (name !== null && !tags.has(name.toLowerCase()) && tags.size < MAX_TAGS)
        tags.set(name.toLowerCase(), name)
    }
  }
  return {
    url,
    title: cleanText(candidate.title, MAX_TITLE),
    slug,
    slugKey: slugKey(slug),
    tags: [...tags.values()],
    forwardingEnabled:
      typeof candidate.forwardingEnabled === 'boolean' ? candidate.forwardingEnabled : true,
    createdAt: cleanCreatedAt(candidate.createdAt),
  }
}

/**
 * No bookmark predates the web's first browsers; the upper bound (not in the future) is applied
 * when written.
 */
const EARLIEST = Date.UTC(1990, 0, 1)

/**
 * A creation time from a file as ISO 8601, or null. ADD_DATE is Unix seconds in every browser's
 * export; some tools write milliseconds or (like Firefox's own JSON) microseconds, told apart by
 * size.
 */
function cleanCreatedAt(value: unknown): string | null {
  let ms: number
  if (typeof value === 'object' && value !== null && 'unixSeconds' in value) {
    const digits = String(value.unixSeconds)
    if (!/^\d{1,20}$/.test(digits)) return null
    const number = Number(digits)
    ms = number < 1e11 ? number * 1000 : number < 1e14 ? number : Math.floor(number / 1000)
  } else if (typeof value === 'string' && value.length <= 40) {
    ms = Date.parse(value)
  } else return null
  return Number.isFinite(ms) && ms >= EARLIEST && ms < Date.UTC(10000, 0, 1)
    ? new Date(ms).toISOString()
    : null
}
