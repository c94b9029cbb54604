/**
 * The Netscape bookmark file (`<!DOCTYPE NETSCAPE-Bookmark-file-1>`) that every browser exports
 * and imports.
 *
 * Read as a stream of chunks with htmlparser2's Tokenizer (a maintained, forgiving HTML tokenizer,
 * loaded only when an import needs it), never with a regular expression over the markup, and
 * without an element tree or stack (issue 26): the format is loose HTML — unclosed `<DT>`, `<p>`
 * and `<DL>` — and a parser that keeps open elements pays for each new one in the depth reached,
 * which a file of unclosed `<DL>` makes quadratic. This reader keeps only the anchor being read, so
 * its work is linear in the file's length whatever the nesting, and what it holds is bounded: the
 * last chunks of input (to read a name split across two chunks) and the few attribute values of
 * the current anchor, each cut to a cap. Favicons (`ICON="data:…"`) and every other attribute are
 * skipped without being kept.
 */
import type { TokenizerCallbacks } from 'htmlparser2'
import { MAX_RAW_TEXT, MAX_RAW_URL, type BookmarkCandidate } from './candidate.js'

const DOCTYPE = /^doctype\s+netscape-bookmark-file/i

/** Anchors end at `</A>` and also where a browser's bookmark file starts the next entry or folder. */
const ENDS_ANCHOR = new Set(['a', 'dt', 'dd', 'dl', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
/** The attributes of an anchor that are read, each kept up to its cap (one more character marks "too long"). */
const KEPT_ATTRIBUTES: Record<string, number> = { href: MAX_RAW_URL + 1, shortcuturl: 256, tags: 16 * 1024 }
/** No name this reader looks at is longer; a longer tag or attribute name is one it ignores. */
const MAX_NAME = 16
/** Input kept behind the tokenizer's position, for names and text split across chunks. */
const KEPT_INPUT = 64 * 1024

/** A copy that shares no memory with the chunk it was cut from (V8 keeps a slice's parent alive). */
export function detach(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}

interface Anchor {
  href: string
  shortcut: string | undefined
  tags: string | undefined
  text: string
}

export interface NetscapeReader {
  /** The next piece of the file, in order; a bookmark is passed to `onBookmark` as soon as it ends. */
  write(chunk: string): void
  end(): void
  /** The file declared itself a bookmark file. */
  readonly isBookmarkFile: boolean
}

/**
 * Every `<A HREF>` of the file in order: HREF, its text as the title, Firefox's SHORTCUTURL (a
 * keyword, the browser's own go-link) as the slug and its TAGS (comma-separated) as tags. Folders
 * (`<H3>`) are not turned into tags: a browser's folder tree is not a set of labels. An anchor
 * without `</A>` ends at the next anchor, entry (`<DT>`, `<DD>`), list (`<DL>`, `</DL>`),
 * heading, or the end of the file.
 */
export async function createNetscapeReader(onBookmark: (bookmark: BookmarkCandidate) => void): Promise<NetscapeReader> {
  const { Tokenizer } = await import('htmlparser2')
  // The input behind the tokenizer's position: the tokenizer reports positions, not strings.
  const kept: string[] = []
  let keptFrom = 0
  let keptLength = 0
  const slice = (start: number, end: number): string => {
    let text = ''
    let offset = keptFrom
    for (const chunk of kept) {
      const from = Math.max(start - offset, 0)
      const to = Math.min(end - offset, chunk.length)
      if (from < to) text += chunk.slice(from, to)
      offset += chunk.length
    }
    return text
  }
  const nameAt = (start: number, end: number): string | null => (end - start > MAX_NAME || start < keptFrom ? null : slice(start, end).toLowerCase())

  let isBookmarkFile = false
  let tag: string | null = null
  let attributes: Map<string, string> = new Map()
  let attribute: { name: string; cap: number; value: string } | null = null
  let open: Anchor | null = null

  const append = (current: string, piece: string, cap: number) => (current.length >= cap ? current : current + piece.slice(0, cap - current.length))
  const closeAnchor = () => {
    if (open === null) return
    const { href, shortcut, tags, text } = open
    open = null
    const slug = shortcut === undefined ? '' : shortcut.trim()
    onBookmark({
      url: detach(href),
      title: detach(text),
      slug: slug === '' ? null : detach(slug),
      tags: tags === undefined ? [] : detach(tags).split(','),
      forwardingEnabled: true,
    })
  }
  const endOfOpenTag = () => {
    if (tag === 'a') {
      const href = attributes.get('href')
      // An anchor without HREF is not a bookmark (some exports write named anchors).
      if (href !== undefined) open = { href, shortcut: attributes.get('shortcuturl'), tags: attributes.get('tags'), text: '' }
    }
    tag = null
    attributes = new Map()
  }

  const callbacks: TokenizerCallbacks = {
    ondeclaration(start, end) {
      if (end - start <= 200 && start >= keptFrom && DOCTYPE.test(slice(start, end))) isBookmarkFile = true
    },
    onprocessinginstruction() {},
    oncomment() {},
    oncdata() {},
    onopentagname(start, end) {
      tag = nameAt(start, end)
      if (tag !== null && ENDS_ANCHOR.has(tag)) closeAnchor()
    },
    onattribname(start, end) {
      if (tag !== 'a') return
      const name = nameAt(start, end)
      const cap = name === null ? undefined : KEPT_ATTRIBUTES[name]
      // The first of repeated attributes counts, as in HTML.
      attribute = cap === undefined || attributes.has(name!) ? null : { name: name!, cap, value: '' }
    },
    onattribdata(start, end) {
      if (attribute !== null && attribute.value.length < attribute.cap) attribute.value = append(attribute.value, slice(start, end), attribute.cap)
    },
    onattribentity(codepoint) {
      if (attribute !== null) attribute.value = append(attribute.value, String.fromCodePoint(codepoint), attribute.cap)
    },
    onattribend() {
      if (attribute !== null) attributes.set(attribute.name, attribute.value)
      attribute = null
    },
    onopentagend: endOfOpenTag,
    onselfclosingtag: endOfOpenTag,
    ontext(start, end) {
      if (open !== null && open.text.length < MAX_RAW_TEXT) open.text = append(open.text, slice(start, end), MAX_RAW_TEXT)
    },
    ontextentity(codepoint) {
      if (open !== null) open.text = append(open.text, String.fromCodePoint(codepoint), MAX_RAW_TEXT)
    },
    onclosetag(start, end) {
      const name = nameAt(start, end)
      if (name !== null && ENDS_ANCHOR.has(name)) closeAnchor()
    },
    onend: closeAnchor,
  }
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks)

  return {
    write(chunk) {
      kept.push(chunk)
      keptLength += chunk.length
      tokenizer.write(chunk)
      // Keep at least KEPT_INPUT characters behind the position; older chunks go.
      while (kept.length > 1 && keptLength - kept[0]!.length >= KEPT_INPUT) {
        const first = kept.shift()!
        keptFrom += first.length
        keptLength -= first.length
      }
    },
    end() {
      tokenizer.end()
      kept.length = 0
    },
    get isBookmarkFile() {
      return isBookmarkFile
    },
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

export interface ExportedBookmark {
  url: string
  title: string | null
  slug: string | null
  tags: string[]
  createdAt: string
  updatedAt: string
}

const unixSeconds = (iso: string) => String(Math.floor(new Date(iso).getTime() / 1000))

/** The links as a bookmark file browsers import; the slug becomes the bookmark's keyword. */
export function writeNetscapeBookmarks(bookmarks: readonly ExportedBookmark[]): string {
  const lines = [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    '<TITLE>Bookmarks</TITLE>',
    '<H1>Bookmarks</H1>',
    '<DL><p>',
  ]
  for (const bookmark of bookmarks) {
    const attributes = [
      `HREF="${escape(bookmark.url)}"`,
      `ADD_DATE="${unixSeconds(bookmark.createdAt)}"`,
      `LAST_MODIFIED="${unixSeconds(bookmark.updatedAt)}"`,
      ...(bookmark.slug === null ? [] : [`SHORTCUTURL="${escape(bookmark.slug)}"`]),
      ...(bookmark.tags.length === 0 ? [] : [`TAGS="${escape(bookmark.tags.join(','))}"`]),
    ]
    lines.push(`    <DT><A ${attributes.join(' ')}>${escape(bookmark.title ?? bookmark.url)}</A>`)
  }
  lines.push('</DL><p>', '')
  return lines.join('\n')
}
