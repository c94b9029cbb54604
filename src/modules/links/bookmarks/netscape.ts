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
import type { BookmarkCandidate } from './candidate.js'
import { BookmarkTokens, FolderTrail, InputWindow } from './netscape-tokens.js'

export { detach } from './netscape-tokens.js'

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
 * keyword, the browser's own go-link) as the slug, its TAGS (comma-separated) as tags, its
 * ADD_DATE (Unix seconds) as its creation time, and the folders (`<H3>` followed by its `<DL>`) it
 * sits in as one path, their names joined with `/` (`Work/Projects`): the collection it goes into.
 * The browser's own root folders (the bookmarks toolbar, Firefox's "Other bookmarks":
 * `PERSONAL_TOOLBAR_FOLDER`, `UNFILED_BOOKMARKS_FOLDER`) are left out of the path, since every
 * bookmark of theirs would carry them. A path longer than a collection's name (200 characters)
 * keeps its innermost folders. With `foldersAsTags`, the path is also a tag, first among its tags
 * (cut the same way to a tag's 64 characters). The folder path kept is bounded (deeper `<DL>`s are
 * only counted). An anchor without `</A>` ends at the next anchor, entry (`<DT>`, `<DD>`), list
 * (`<DL>`, `</DL>`), heading, or the end of the file.
 */
export async function createNetscapeReader(
  onBookmark: (bookmark: BookmarkCandidate) => void,
  options: { foldersAsTags: boolean } = { foldersAsTags: false },
): Promise<NetscapeReader> {
  const { Tokenizer } = await import('htmlparser2')
  const input = new InputWindow()
  const tokens = new BookmarkTokens(input, new FolderTrail(options.foldersAsTags), onBookmark)
  const tokenizer = new Tokenizer({ decodeEntities: true }, tokens)
  return {
    write(chunk) {
      input.push(chunk)
      tokenizer.write(chunk)
      input.forgetOld()
    },
    end() {
      tokenizer.end()
      input.clear()
    },
    get isBookmarkFile() {
      return tokens.isBookmarkFile
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

/** A collection as the file's folders: its name's parts nest (`Work/Projects`). */
export interface ExportedFolder {
  name: string
  /** Indexes into the exported bookmarks, in the collection's order. */
  bookmarks: readonly number[]
}

const unixSeconds = (iso: string) => String(Math.floor(new Date(iso).getTime() / 1000))

/** A folder of the exported file: its bookmarks and sub-folders, in first-seen order. */
interface Folder {
  bookmarks: Set<number>
  folders: Map<string, Folder>
}

const emptyFolder = (): Folder => ({ bookmarks: new Set(), folders: new Map() })

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

function* folderLines(
  folder: Folder,
  bookmarks: readonly ExportedBookmark[],
  indent: string,
): Generator<string> {
  for (const [name, sub] of folder.folders) {
    yield `${indent}<DT><H3>${escape(name)}</H3>`
    yield `${indent}<DL><p>`
    yield* folderLines(sub, bookmarks, `${indent}    `)
    yield `${indent}</DL><p>`
  }
  for (const index of folder.bookmarks) yield bookmarkLine(bookmarks[index]!, indent)
}

/**
 * The links as a bookmark file browsers import; the slug becomes the bookmark's keyword and the
 * tags stay in TAGS. Each collection is a folder, its name's parts nested (`Work/Projects` is
 * Work › Projects), holding its links in its order: a link in several collections is written in
 * each, a link in none at the top level, in the export's order. Importing the file makes the same
 * collections again. A collection without links is written as an empty folder. The file's lines,
 * made as they are read (joined by a newline, the last one empty).
 */
export function* netscapeBookmarkLines(
  bookmarks: readonly ExportedBookmark[],
  collections: readonly ExportedFolder[] = [],
): Generator<string> {
  yield* [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    '<TITLE>Bookmarks</TITLE>',
    '<H1>Bookmarks</H1>',
    '<DL><p>',
  ]
  const root = emptyFolder()
  const filed = new Set<number>()
  for (const collection of collections) {
    let folder = root
    for (const name of collection.name.split('/').filter((part) => part.trim() !== '')) {
      let sub = folder.folders.get(name)
      if (sub === undefined) folder.folders.set(name, (sub = emptyFolder()))
      folder = sub
    }
    for (const index of collection.bookmarks) {
      folder.bookmarks.add(index)
      filed.add(index)
    }
  }
  bookmarks.forEach((_, index) => {
    if (!filed.has(index)) root.bookmarks.add(index)
  })
  yield* folderLines(root, bookmarks, '    ')
  yield* ['</DL><p>', '']
}
