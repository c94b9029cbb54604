/**
 * The JSON export (`format: "switchboard-links"`, version 1) and what the JSON import reads: that
 * document, or a bare array of the same link objects.
 */
import { invalidField } from '../../../errors.js'
import type { BookmarkCandidate } from './candidate.js'

export const JSON_FORMAT = 'switchboard-links'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The items of a JSON import; an item that is not an object is kept as null (skipped, reported). */
export function parseJsonLinks(content: string): Array<BookmarkCandidate | null> {
  let document: unknown
  try {
    document = JSON.parse(content)
  } catch {
    throw invalidField('content', 'is not valid JSON')
  }
  const items = Array.isArray(document) ? document : isObject(document) && Array.isArray(document.links) ? document.links : null
  if (items === null) throw invalidField('content', `must be a ${JSON_FORMAT} export (an object with "links") or an array of links`)
  return items.map((item: unknown) =>
    isObject(item) ? { url: item.url, title: item.title, slug: item.slug, tags: item.tags, forwardingEnabled: item.forwarding_enabled } : null,
  )
}
