/**
 * The Netscape bookmark file (`<!DOCTYPE NETSCAPE-Bookmark-file-1>`) that every browser exports
 * and imports.
 *
 * Read as a stream of chunks with htmlparser2's Tokenizer (a maintained, forgiving HTML tokenizer,
 * loaded only when an import needs it), never with a regular expression over the markup, and
 * without an element tree or stack: the format is loose HTML — unclosed `<DT>`, `<p>`
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

/**
 * Anchors end at `</A>` and also where a browser's bookmark file starts the next entry or folder.
 */
const ENDS_ANCHOR = new Set(['a', 'dt', 'dd', 'dl', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
/**
 * The attributes of an anchor that are read, each kept up to its cap (one more character marks "too
 * long").
 */
const KEPT_ATTRIBUTES: Record<string, number> = {
  href: MAX_RAW_URL + 1,
  shortcuturl: 256,
  tags: 16 * 1024,
  add_date: 32,
}
/** The attributes of a folder heading that are read: the browser's root folders are marked. */
const KEPT_FOLDER_ATTRIBUTES: Record<string, number> = {
  personal_toolbar_folder: 8,
  unfiled_bookmarks_folder: 8,
}
/** No name this reader looks at is longer; a longer tag or attribute name is one it ignores. */
const MAX_NAME = 24
/** Folder levels kept for the path; a file may nest deeper, but no tag could hold such a path. */
const MAX_FOLDER_DEPTH = 32
const MAX_FOLDER_NAME = 256
/** A tag's longest name (tags/schemas.ts). */
const MAX_TAG_NAME = 64
/** Input kept behind the tokenizer's position, for names and text split across chunks. */
const KEPT_INPUT = 64 * 1024

/**
 * A copy that shares no memory with the chunk it was cut from (V8 keeps a slice's parent alive).
 */
export function detach(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}

interface Anchor {
  href: string
  shortcut: string | undefined
  tags: string | undefined
  addDate: string | undefined
  text: string
  folder: string | null
}

/** A folder's heading: its name, and whether it is one of the browser's root folders. */
interface Heading {
  text: string
  root: boolean
}

export interface NetscapeReader {
  /**
   * The next piece of the file, in order; a bookmark is passed to `onBookmark` as soon as it ends.
   */
  write(chunk: string): void
  end(): void
  /** The file declared itself a bookmark file. */
  readonly isBookmarkFile: boolean
}

/**
 * Every `<A HREF>` of the file in order: HREF, its text as the title, Firefox's SHORTCUTURL (a
 * keyword, the browser's own go-link) as the slug, its TAGS (comma-separated) as tags and its
 * ADD_DATE (Unix seconds) as its creation time. With `folders`, the folders (`<H3>`
 * followed by its `<DL>`) a bookmark sits in become one tag, their path joined with `/`
 * (`Work/Projects`), first among its tags; the browser's own root folders (the bookmarks toolbar,
 * Firefox's "Other bookmarks": `PERSONAL_TOOLBAR_FOLDER`, `UNFILED_BOOKMARKS_FOLDER`) are left out
 * of the path, since every bookmark of theirs would carry them. A path longer than a tag's 64
 * characters keeps its innermost folders. The folder path kept is bounded (MAX_FOLDER_DEPTH
 * levels; deeper `<DL>`s are only counted). An anchor
 * without `</A>` ends at the next anchor, entry (`<DT>`, `<DD>`), list (`<DL>`, `</DL>`),
 * heading, or the end of the file.
 */
export async function createNetscapeReader(
  onBookmark: (bookmark: BookmarkCandidate) => void,
  options: { folders: boolean } = { folders: false },
): Promise<NetscapeReader> {
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
  const nameAt = (start: number, end: number): string | null =>
    end - start > MAX_NAME || start < keptFrom ? null : slice(start, end).toLowerCase()

  let isBookmarkFile = false
  let tag: string | null = null
  let attributes: Map<string, string> = new Map()
  let attribute: { name: string; cap: number; value: string } | null = null
  let open: Anchor | null = null
  // Folders: the heading being read, the one whose <DL> comes next, and the open lists' folders.
  let heading: Heading | null = null
  let nextFolder: Heading | null = null
  const folders: Array<Heading | null> = []
  let depth = 0
  const folderPath = (): string | null => {
    if (!options.folders) return null
    const names = folders
      .flatMap((folder) =>
        folder === null || folder.root ? [] : [folder.text.replace(/\s+/g, ' ').trim()],
      )
      .filter((name) => name !== '')
    // A tag holds 64 characters: a deeper path keeps its innermost folders, the most specific.
    let path = names.pop() ?? null
    for (
      let name = names.pop();
      name !== undefined && path !== null && path.length + name.length + 1 <= MAX_TAG_NAME;
      name = names.pop()
    ) {
      path = `${name}/${path}`
    }
    return path
  }

  const append = (current: string, piece: string, cap: number) =>
    current.length >= cap ? current : current + piece.slice(0, cap - current.length)
  const closeAnchor = () => {
    if (open === null) return
    const { href, shortcut, tags, addDate, text, folder } = open
    open = null
    const slug = shortcut === undefined ? '' : shortcut.trim()
    onBookmark({
      url: detach(href),
      title: detach(text),
      slug: slug === '' ? null : detach(slug),
      tags: [
        ...(folder === null ? [] : [detach(folder)]),
        ...(tags === undefined ? [] : detach(tags).split(',')),
      ],
      forwardingEnabled: true,
      createdAt: addDate === undefined ? undefined : { unixSeconds: addDate.trim() },
    })
  }
  const endOfOpenTag = () => {
    if (tag === 'a') {
      const href = attributes.get('href')
      // An anchor without HREF is not a bookmark (some exports write named anchors).
      if (href !== undefined)
        open = {
          href,
          shortcut: attributes.get('shortcuturl'),
          tags: attributes.get('tags'),
          addDate: attributes.get('add_date'),
          text: '',
          folder: folderPath(),
        }
    } else if (tag === 'h3') {
      const marked = (name: string) => attributes.get(name)?.toLowerCase() === 'true'
      heading = {
        text: '',
        root: marked('personal_toolbar_folder') || marked('unfiled_bookmarks_folder'),
      }
    } else if (tag === 'dl') {
      // A list opens the folder whose heading came before it (none for the file's root list).
      if (heading !== null) nextFolder = heading
      if (depth < MAX_FOLDER_DEPTH) folders.push(nextFolder)
      depth++
      nextFolder = null
      heading = null
    }
    tag = null
    attributes = new Map()
  }

  const callbacks: TokenizerCallbacks = {
    ondeclaration(start, end) {
      if (end - start <= 200 && start >= keptFrom && DOCTYPE.test(slice(start, end)))
        isBookmarkFile = true
    },
    onprocessinginstruction() {},
    oncomment() {},
    oncdata() {},
    onopentagname(start, end) {
      tag = nameAt(start, end)
      if (tag !== null && ENDS_ANCHOR.has(tag)) closeAnchor()
    },
    onattribname(start, end) {
      if (tag !== 'a' && tag !== 'h3') return
      const name = nameAt(start, end)
      const cap =
        name === null ? undefined : (tag === 'a' ? KEPT_ATTRIBUTES : KEPT_FOLDER_ATTRIBUTES)[name]
      // The first of repeated attributes counts, as in HTML.
      attribute =
        cap === undefined || attributes.has(name!) ? null : { name: name!, cap, value: '' }
    },
    onattribdata(start, end) {
      if (attribute !== null && attribute.value.length < attribute.cap)
        attribute.value = append(attribute.value, slice(start, end), attribute.cap)
    },
    onattribentity(codepoint) {
      if (attribute !== null)
        attribute.value = append(attribute.value, String.fromCodePoint(codepoint), attribute.cap)
    },
    onattribend() {
      if (attribute !== null) attributes.set(attribute.name, attribute.value)
      attribute = null
    },
    onopentagend: endOfOpenTag,
    onselfclosingtag: endOfOpenTag,
    ontext(start, end) {
      if (open !== null && open.text.length < MAX_RAW_TEXT)
        open.text = append(open.text, slice(start, end), MAX_RAW_TEXT)
      else if (heading !== null && heading.text.length < MAX_FOLDER_NAME)
        heading.text = append(heading.text, slice(start, end), MAX_FOLDER_NAME)
    },
    ontextentity(codepoint) {
      if (open !== null)
        open.text = append(open.text, String.fromCodePoint(codepoint), MAX_RAW_TEXT)
      else if (heading !== null)
        heading.text = append(heading.text, String.fromCodePoint(codepoint), MAX_FOLDER_NAME)
    },
    onclosetag(start, end) {
      const name = nameAt(start, end)
      if (name !== null && ENDS_ANCHOR.has(name)) closeAnchor()
      if (name === 'h3' && heading !== null) {
        nextFolder = { ...heading, text: detach(heading.text) }
        heading = null
      } else if (name === 'dl' && depth > 0) {
        depth--
        if (depth < MAX_FOLDER_DEPTH) folders.pop()
      }
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

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
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

/** A folder of the exported file: its bookmarks and sub-folders, in first-seen order. */
interface Folder {
  bookmarks: ExportedBookmark[]
  folders: Map<string, Folder>
}

const emptyFolder = (): Folder => ({ bookmarks: [], folders: new Map() })

function bookmarkLine(bookmark: ExportedBookmark, indent: string): string {
  const attributes = [
    `HREF="${escape(bookmark.url)}"`,
    `ADD_DATE="${unixSeconds(bookmark.createdAt)}"`,
    `LAST_MODIFIED="${unixSeconds(bookmark.updatedAt)}"`,
    ...(bookmark.slug === null ? [] : [`SHORTCUTURL="${escape(bookmark.slug)}"`]),
    ...(bookmark.tags.length === 0 ? [] : [`TAGS="${escape(bookmark.tags.join(','))}"`]),
  ]
  return `${indent}<DT><A ${attributes.join(' ')}>${escape(bookmark.title ?? bookmark.url)}</A>`
}

function writeFolder(folder: Folder, indent: string, lines: string[]): void {
  for (const [name, sub] of folder.folders) {
    lines.push(`${indent}<DT><H3>${escape(name)}</H3>`, `${indent}<DL><p>`)
    writeFolder(sub, `${indent}    `, lines)
    lines.push(`${indent}</DL><p>`)
  }
  for (const bookmark of folder.bookmarks) lines.push(bookmarkLine(bookmark, indent))
}

/**
 * The links as a bookmark file browsers import; the slug becomes the bookmark's keyword.
 * A tagged link is written into a folder named after its first tag (by name; `Work/Projects`
 * nests as Work › Projects), and all its tags stay in TAGS, so importing the file with folders as
 * tags gives each link the same tags again; a browser shows the folders.
 */
export function writeNetscapeBookmarks(bookmarks: readonly ExportedBookmark[]): string {
  const lines = [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    '<TITLE>Bookmarks</TITLE>',
    '<H1>Bookmarks</H1>',
    '<DL><p>',
  ]
  const root = emptyFolder()
  for (const bookmark of bookmarks) {
    let folder = root
    const first = bookmark.tags[0]
    for (const name of first === undefined
      ? []
      : first.split('/').filter((part) => part.trim() !== '')) {
      let sub = folder.folders.get(name)
      if (sub === undefined) folder.folders.set(name, (sub = emptyFolder()))
      folder = sub
    }
    folder.bookmarks.push(bookmark)
  }
  writeFolder(root, '    ', lines)
  lines.push('</DL><p>', '')
  return lines.join('\n')
}
