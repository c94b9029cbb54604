/**
 * A model's answer is data, never instructions (docs/API.md#link-suggestions): every field is read
 * as a plain value, cleaned and cut to its limits here, whatever the model or the page it read
 * said. Any other field is ignored, so an answer naming a URL changes nothing.
 */
import { isDisplayText } from '../../lib/schema-types.js'

export const MAX_TITLE = 200
export const MAX_TAGS = 8
export const MAX_TAG_LENGTH = 40
/** Room for a `-NN` suffix within the slug grammar's 64 characters. */
const MAX_SLUG_BASE = 48
export const SLUG_GRAMMAR = /^[A-Za-z0-9_-]{1,64}$/
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu

/** What the model proposed, before the slug is made free and tags matched. */
export interface ModelAnswer {
  title: string | null
  slug: string | null
  tags: string[]
}

/** Plain text: markup removed (tags, then any `<` or `>` left), one line, cut to `max`. */
export function plainText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null
  const text = [
    ...value
      .slice(0, 8 * max)
      .replace(/<[^>]*>/g, ' ')
      .replace(/[<>]/g, ' ')
      .replace(UNSHOWABLE, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  ]
    .slice(0, max)
    .join('')
    .trim()
  return text !== '' && isDisplayText(text) ? text : null
}

/**
 * A slug in the link grammar from any text: lower case, accents dropped, every other run of
 * characters one `-`, cut at a word where it can be; null when nothing is left.
 */
export function slugify(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const words = value
    .slice(0, 1000)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
  let slug = ''
  for (const word of words) {
    const next = slug === '' ? word : `${slug}-${word}`
    if (next.length > MAX_SLUG_BASE) {
      if (slug === '') slug = word.slice(0, MAX_SLUG_BASE)
      break
    }
    slug = next
  }
  return slug === '' ? null : slug
}

/** Tag names: plain, ≤ MAX_TAG_LENGTH characters, deduplicated ignoring case, in order. */
export function cleanTags(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []
  const seen = new Set<string>()
  const tags: string[] = []
  for (const entry of list.slice(0, 100)) {
    if (typeof entry !== 'string' || entry.length > 4 * MAX_TAG_LENGTH) continue
    const tag = plainText(entry, 4 * MAX_TAG_LENGTH)
    if (tag === null || [...tag].length > MAX_TAG_LENGTH) continue
    const key = tag.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    tags.push(tag)
  }
  return tags
}

/** The JSON object in a model's text: bare, inside a markdown fence, or amid prose. */
function jsonObjectIn(content: string): Record<string, unknown> | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content)?.[1]
  const candidates = [content, ...(fenced === undefined ? [] : [fenced])]
  const start = content.indexOf('{')
  const end = content.lastIndexOf('}')
  if (start >= 0 && end > start) candidates.push(content.slice(start, end + 1))
  for (const text of candidates) {
    try {
      const parsed: unknown = JSON.parse(text.trim())
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        return parsed as Record<string, unknown>
    } catch {
      // The next reading.
    }
  }
  return null
}

/**
 * The model's text read as an answer; null when it holds no JSON object or none of the three
 * fields is usable.
 */
export function readModelAnswer(content: string): ModelAnswer | null {
  const object = jsonObjectIn(content.slice(0, 64 * 1024))
  if (object === null) return null
  const answer = {
    title: plainText(object.title, MAX_TITLE),
    slug: slugify(object.slug),
    tags: cleanTags(object.tags),
  }
  return answer.title === null && answer.slug === null && answer.tags.length === 0 ? null : answer
}

/** Tags matched to existing ones ignoring case (their spelling), at most MAX_TAGS. */
export function matchTags(
  tags: readonly string[],
  existing: readonly string[],
  existingOnly: boolean,
): { tags: string[]; new_tags: string[] } {
  const byKey = new Map(existing.map((name) => [name.toLowerCase(), name]))
  const seen = new Set<string>()
  const result = { tags: [] as string[], new_tags: [] as string[] }
  for (const tag of tags) {
    const key = tag.toLowerCase()
    const known = byKey.get(key)
    if (seen.has(key) || (known === undefined && existingOnly)) continue
    if (result.tags.length === MAX_TAGS) break
    seen.add(key)
    result.tags.push(known ?? tag)
    if (known === undefined) result.new_tags.push(tag)
  }
  return result
}
