/**
 * The JSON export (`format: "switchboard-links"`, version 1) and what the JSON import reads: that
 * document, or a bare array of the same link objects.
 *
 * Read as a stream: @streamparser/json's tokenizer (RFC 8259 tokens from UTF-8 bytes,
 * in chunks) under a small grammar of our own that builds only what an import uses — each link's
 * `url`, `title`, `slug`, `tags`, `forwarding_enabled` and `created_at`, and each collection's
 * `name`, `description` and `links` (positions in the document's `links`, from 0) — and skips
 * every other value without building it. Nesting is bounded (a 400 past MAX_DEPTH), so the
 * reader's memory is the current link plus one token, whatever the file, and the collections'
 * references (at most MAX_COLLECTION_REFERENCES in all).
 */
import type { ParsedTokenInfo, Tokenizer as JsonTokenizer } from '@streamparser/json'
import { AppError, invalidField } from '../../../errors.js'
import { MAX_RAW_TEXT, MAX_RAW_URL, type BookmarkCandidate } from './candidate.js'
import { detach } from './netscape.js'

export const JSON_FORMAT = 'switchboard-links'

/** Deeper than any export (4 levels) by far; a file nested deeper is not one. */
export const MAX_DEPTH = 64
/** Tag names read per link: cleanBookmark keeps 50, a file may hold empty or repeated ones. */
const MAX_TAGS_READ = 500
/** The most collections one file may carry, and link references over all of them. */
export const MAX_COLLECTIONS = 1000
export const MAX_COLLECTION_REFERENCES = 100_000

// TokenType's values (the library's enum, which is loaded only with the library).
const LEFT_BRACE = 0
const RIGHT_BRACE = 1
const LEFT_BRACKET = 2
const RIGHT_BRACKET = 3
const COLON = 4
const COMMA = 5
const STRING = 9

type Expect = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'comma' | 'end'

/** What an open container is to the import. */
type Role =
  | 'document' // the top-level object: its "links" holds the items
  | 'items' // the array of link objects
  | 'item' // one link object
  | 'tags' // an item's "tags"
  | 'collections' // the document's "collections"
  | 'collection' // one collection object
  | 'references' // a collection's "links": positions in the document's links
  | 'other' // anything else: read for well-formedness, not kept

interface Frame {
  kind: 'object' | 'array'
  role: Role
  /** In an object, the key of the member being read when the import uses it; otherwise null. */
  key: string | null
}

const USED_KEYS: Partial<Record<Role, ReadonlySet<string>>> = {
  document: new Set(['links', 'collections']),
  item: new Set(['url', 'title', 'slug', 'tags', 'forwarding_enabled', 'created_at']),
  collection: new Set(['name', 'description', 'links']),
}

/** A collection of the file: its name and description as written, its links by position. */
export interface CollectionCandidate {
  name: unknown
  description: unknown
  links: number[]
}

export interface JsonLinksReader {
  /**
   * The next bytes of the file, in order; an item is passed to `onItem` as soon as it ends (null:
   * not an object).
   */
  write(chunk: Uint8Array): void
  /** Fails the file when it ended early or was not of an accepted shape. */
  end(): void
}

const notJson = () => invalidField('content', 'is not valid JSON')
const wrongShape = () =>
  invalidField(
    'content',
    `must be a ${JSON_FORMAT} export (an object with "links") or an array of links`,
  )

/** A kept string, cut to its cap (one more character than a URL may have marks "too long"). */
function capped(value: unknown, cap: number): unknown {
  return typeof value === 'string'
    ? detach(value.length > cap ? value.slice(0, cap) : value)
    : value
}

export async function createJsonLinksReader(
  onItem: (item: BookmarkCandidate | null) => void,
  onCollection: (collection: CollectionCandidate) => void = () => {},
): Promise<JsonLinksReader> {
  const { Tokenizer } = await import('@streamparser/json')
  const stack: Frame[] = []
  let expect: Expect = 'value'
  let sawItems = false
  let item: Record<string, unknown> = {}
  let tags: unknown[] = []
  let collection: CollectionCandidate = { name: undefined, description: undefined, links: [] }
  let collections = 0
  let references = 0

  const roleOfNewContainer = (kind: Frame['kind'], parent: Frame | undefined): Role => {
    if (parent === undefined) return kind === 'array' ? 'items' : 'document'
    if (parent.role === 'document' && parent.key === 'links' && kind === 'array') return 'items'
    if (parent.role === 'items' && kind === 'object') return 'item'
    if (parent.role === 'item' && parent.key === 'tags' && kind === 'array') return 'tags'
    if (parent.role === 'document' && parent.key === 'collections' && kind === 'array')
      return 'collections'
    if (parent.role === 'collections' && kind === 'object') return 'collection'
    if (parent.role === 'collection' && parent.key === 'links' && kind === 'array')
      return 'references'
    return 'other'
  }

  const open = (kind: Frame['kind']) => {
    if (stack.length >= MAX_DEPTH)
      throw invalidField('content', `is nested deeper than ${MAX_DEPTH} levels`)
    const role = roleOfNewContainer(kind, stack.at(-1))
    if (role === 'items') sawItems = true
    if (role === 'item') item = {}
    if (role === 'tags') tags = []
    if (role === 'collection') {
      if (++collections > MAX_COLLECTIONS)
        throw invalidField('content', `holds more than ${MAX_COLLECTIONS} collections`)
      collection = { name: undefined, description: undefined, links: [] }
    }
    stack.push({ kind, role, key: null })
    expect = kind === 'object' ? 'first-key' : 'first-value'
  }

  /** A complete primitive value where the next value goes. */
  const primitive = (value: unknown) => {
    const parent = stack.at(-1)
    if (parent === undefined) throw wrongShape()
    if (parent.role === 'items') onItem(null)
    else if (parent.role === 'tags' && tags.length < MAX_TAGS_READ)
      tags.push(capped(value, MAX_RAW_TEXT))
    else if (parent.role === 'item' && parent.key !== null) {
      const cap =
        parent.key === 'url' ? MAX_RAW_URL + 1 : parent.key === 'slug' ? 256 : MAX_RAW_TEXT
      // A later duplicate key wins, as with JSON.parse.
      item[parent.key] = capped(value, cap)
    } else if (parent.role === 'collection' && parent.key !== null && parent.key !== 'links') {
      collection[parent.key as 'name' | 'description'] = capped(value, MAX_RAW_TEXT)
    } else if (parent.role === 'references') {
      if (++references > MAX_COLLECTION_REFERENCES)
        throw invalidField(
          'content',
          `refers to more than ${MAX_COLLECTION_REFERENCES} links from its collections`,
        )
      // Anything but a position of a link is left out (it refers to nothing).
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
        collection.links.push(value)
    }
    expect = 'comma'
  }

  const close = (kind: Frame['kind']) => {
    const frame = stack.pop()!
    if (frame.kind !== kind) throw notJson()
    const parent = stack.at(-1)
    if (frame.role === 'item') {
      const {
        url,
        title,
        slug,
        tags: names,
        forwarding_enabled: forwardingEnabled,
        created_at: createdAt,
      } = item
      onItem({
        url,
        title,
        slug,
        tags: names,
        forwardingEnabled,
        createdAt: typeof createdAt === 'string' ? createdAt : undefined,
      })
    } else if (frame.role === 'tags') {
      item.tags = tags
    } else if (frame.role === 'collection') {
      onCollection(collection)
    } else if (frame.role === 'other' && parent?.role === 'items') {
      // An array where a link object should be.
      onItem(null)
    } else if (frame.role === 'other' && parent?.role === 'item' && parent.key !== null) {
      // A container where a link field should be: the field is invalid, as JSON.parse would give
      // it.
      item[parent.key] = parent.key === 'tags' ? undefined : {}
    }
    expect = parent === undefined ? 'end' : 'comma'
  }

  const onToken = (parsed: ParsedTokenInfo) => {
    // Compared as numbers with the constants above: the library's enum is loaded with it, on first
    // use.
    const token: number = parsed.token
    const value: unknown = parsed.value
    const top = stack.at(-1)
    switch (expect) {
      case 'end':
        throw notJson()
      case 'first-key':
      case 'key':
        if (token === RIGHT_BRACE && expect === 'first-key') return close('object')
        if (token !== STRING) throw notJson()
        top!.key = USED_KEYS[top!.role]?.has(value as string) === true ? (value as string) : null
        expect = 'colon'
        return
      case 'colon':
        if (token !== COLON) throw notJson()
        expect = 'value'
        return
      case 'comma':
        if (token === COMMA) expect = top!.kind === 'object' ? 'key' : 'value'
        else if (token === RIGHT_BRACE) close('object')
        else if (token === RIGHT_BRACKET) close('array')
        else throw notJson()
        return
      case 'first-value':
      case 'value':
        if (token === RIGHT_BRACKET && expect === 'first-value') return close('array')
        if (token === LEFT_BRACE) return open('object')
        if (token === LEFT_BRACKET) return open('array')
        if (token === RIGHT_BRACE || token === RIGHT_BRACKET || token === COLON || token === COMMA)
          throw notJson()
        return primitive(value)
    }
  }

  const tokenizer: JsonTokenizer = new Tokenizer()
  tokenizer.onToken = onToken
  // The tokenizer reports what onToken throws here too: a refusal of ours passes through as it is.
  tokenizer.onError = (error) => {
    throw error instanceof AppError ? error : notJson()
  }

  return {
    write(chunk) {
      tokenizer.write(chunk)
    },
    end() {
      tokenizer.end()
      if (expect !== 'end') throw notJson()
      if (!sawItems) throw wrongShape()
    },
  }
}
