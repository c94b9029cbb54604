/**
 * The pieces of the Netscape bookmark reader (netscape.ts createNetscapeReader): the input window
 * behind the tokenizer, the folder trail, and the tokenizer callbacks that turn anchors into
 * bookmark candidates. Each holds a bounded amount: see netscape.ts for why.
 */
import type { TokenizerCallbacks } from 'htmlparser2'
import { appendCapped as append, AttributeCollector } from '../../../lib/tag-attributes.js'
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
/** A collection's longest name (collections/schemas.ts). */
export const MAX_COLLECTION_NAME = 200
/** Input kept behind the tokenizer's position, for names and text split across chunks. */
const KEPT_INPUT = 64 * 1024

/**
 * A copy that shares no memory with the chunk it was cut from (V8 keeps a slice's parent alive).
 */
export function detach(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}

/** The input behind the tokenizer's position: the tokenizer reports positions, not strings. */
export class InputWindow {
  readonly #kept: string[] = []
  #keptFrom = 0
  #keptLength = 0

  push(chunk: string): void {
    this.#kept.push(chunk)
    this.#keptLength += chunk.length
  }

  /** Keep at least KEPT_INPUT characters behind the position; older chunks go. */
  forgetOld(): void {
    while (this.#kept.length > 1 && this.#keptLength - this.#kept[0]!.length >= KEPT_INPUT) {
      const first = this.#kept.shift()!
      this.#keptFrom += first.length
      this.#keptLength -= first.length
    }
  }

  clear(): void {
    this.#kept.length = 0
  }

  /** Whether the input from `start` on is still kept. */
  holds(start: number): boolean {
    return start >= this.#keptFrom
  }

  slice(start: number, end: number): string {
    let text = ''
    let offset = this.#keptFrom
    for (const chunk of this.#kept) {
      const from = Math.max(start - offset, 0)
      const to = Math.min(end - offset, chunk.length)
      if (from < to) text += chunk.slice(from, to)
      offset += chunk.length
    }
    return text
  }

  /** A tag or attribute name, lower case; null for one too long to be any this reader reads. */
  nameAt(start: number, end: number): string | null {
    return end - start > MAX_NAME || !this.holds(start)
      ? null
      : this.slice(start, end).toLowerCase()
  }
}

/** A folder's heading: its name, and whether it is one of the browser's root folders. */
interface Heading {
  text: string
  root: boolean
}

/**
 * The folders around the current position: the heading being read, the one whose `<DL>` comes
 * next, and the open lists' folders (MAX_FOLDER_DEPTH levels kept; deeper lists only counted).
 */
export class FolderTrail {
  #heading: Heading | null = null
  #nextFolder: Heading | null = null
  readonly #folders: Array<Heading | null> = []
  #depth = 0

  /** `tagged`: whether bookmarks also get their folder path as a tag (`folders_as_tags`). */
  constructor(readonly tagged: boolean) {}

  get readingHeading(): boolean {
    return this.#heading !== null
  }

  startHeading(root: boolean): void {
    this.#heading = { text: '', root }
  }

  addHeadingText(piece: string): void {
    if (this.#heading !== null && this.#heading.text.length < MAX_FOLDER_NAME)
      this.#heading.text = append(this.#heading.text, piece, MAX_FOLDER_NAME)
  }

  endHeading(): void {
    if (this.#heading === null) return
    this.#nextFolder = { ...this.#heading, text: detach(this.#heading.text) }
    this.#heading = null
  }

  /** A list opens the folder whose heading came before it (none for the file's root list). */
  openList(): void {
    if (this.#heading !== null) this.#nextFolder = this.#heading
    if (this.#depth < MAX_FOLDER_DEPTH) this.#folders.push(this.#nextFolder)
    this.#depth++
    this.#nextFolder = null
    this.#heading = null
  }

  closeList(): void {
    if (this.#depth === 0) return
    this.#depth--
    if (this.#depth < MAX_FOLDER_DEPTH) this.#folders.pop()
  }

  /**
   * The open folders as one name, `Work/Projects`, the browser's root folders left out; null
   * outside every named folder. A name holds `maxLength` characters (a tag 64, a collection 200):
   * a deeper path keeps its innermost folders, the most specific.
   */
  path(maxLength: number = MAX_TAG_NAME): string | null {
    const names = this.#folders
      .flatMap((folder) =>
        folder === null || folder.root ? [] : [folder.text.replace(/\s+/g, ' ').trim()],
      )
      .filter((name) => name !== '')
    let path = names.pop() ?? null
    for (
      let name = names.pop();
      name !== undefined && path !== null && path.length + name.length + 1 <= maxLength;
      name = names.pop()
    ) {
      path = `${name}/${path}`
    }
    return path
  }
}

interface Anchor {
  href: string
  shortcut: string | undefined
  tags: string | undefined
  addDate: string | undefined
  text: string
  /** The folder path as a tag, when folders are also tags. */
  folderTag: string | null
  /** The folder path as a collection's name. */
  folder: string | null
}

/** What an anchor becomes: a candidate holding copies, never slices of the file's chunks. */
function candidateOf(anchor: Anchor): BookmarkCandidate {
  const { href, shortcut, tags, addDate, text, folderTag, folder } = anchor
  const slug = shortcut === undefined ? '' : shortcut.trim()
  return {
    url: detach(href),
    title: detach(text),
    slug: slug === '' ? null : detach(slug),
    tags: [
      ...(folderTag === null ? [] : [detach(folderTag)]),
      ...(tags === undefined ? [] : detach(tags).split(',')),
    ],
    forwardingEnabled: true,
    createdAt: addDate === undefined ? undefined : { unixSeconds: addDate.trim() },
    folder: folder === null ? null : detach(folder),
  }
}

/** The tokenizer's callbacks: the open tag's kept attributes, and the anchor being read. */
export class BookmarkTokens implements TokenizerCallbacks {
  isBookmarkFile = false
  #tag: string | null = null
  readonly #attributes: AttributeCollector
  #open: Anchor | null = null

  constructor(
    private readonly input: InputWindow,
    private readonly folders: FolderTrail,
    private readonly onBookmark: (bookmark: BookmarkCandidate) => void,
  ) {
    this.#attributes = new AttributeCollector(input)
  }

  #closeAnchor(): void {
    if (this.#open === null) return
    const anchor = this.#open
    this.#open = null
    this.onBookmark(candidateOf(anchor))
  }

  #endOfOpenTag(): void {
    const attributes = this.#attributes.take()
    if (this.#tag === 'a') {
      const href = attributes.get('href')
      // An anchor without HREF is not a bookmark (some exports write named anchors).
      if (href !== undefined)
        this.#open = {
          href,
          shortcut: attributes.get('shortcuturl'),
          tags: attributes.get('tags'),
          addDate: attributes.get('add_date'),
          text: '',
          folderTag: this.folders.tagged ? this.folders.path() : null,
          folder: this.folders.path(MAX_COLLECTION_NAME),
        }
    } else if (this.#tag === 'h3') {
      const marked = (name: string) => attributes.get(name)?.toLowerCase() === 'true'
      this.folders.startHeading(
        marked('personal_toolbar_folder') || marked('unfiled_bookmarks_folder'),
      )
    } else if (this.#tag === 'dl') {
      this.folders.openList()
    }
    this.#tag = null
  }

  ondeclaration(start: number, end: number): void {
    if (end - start <= 200 && this.input.holds(start))
      if (DOCTYPE.test(this.input.slice(start, end))) this.isBookmarkFile = true
  }
  onprocessinginstruction(): void {}
  oncomment(): void {}
  oncdata(): void {}

  onopentagname(start: number, end: number): void {
    this.#tag = this.input.nameAt(start, end)
    if (this.#tag !== null && ENDS_ANCHOR.has(this.#tag)) this.#closeAnchor()
  }

  onattribname(start: number, end: number): void {
    const tag = this.#tag
    const name = tag === 'a' || tag === 'h3' ? this.input.nameAt(start, end) : null
    const kept = tag === 'a' ? KEPT_ATTRIBUTES : KEPT_FOLDER_ATTRIBUTES
    this.#attributes.begin(name, name === null ? undefined : kept[name])
  }

  onattribdata(start: number, end: number): void {
    this.#attributes.onattribdata(start, end)
  }

  onattribentity(codepoint: number): void {
    this.#attributes.onattribentity(codepoint)
  }

  onattribend(): void {
    this.#attributes.onattribend()
  }

  onopentagend(): void {
    this.#endOfOpenTag()
  }

  onselfclosingtag(): void {
    this.#endOfOpenTag()
  }

  /** Text goes to the anchor being read until it is full, then to a folder heading being read. */
  ontext(start: number, end: number): void {
    const piece = this.input.slice(start, end)
    if (this.#open !== null && this.#open.text.length < MAX_RAW_TEXT)
      this.#open.text = append(this.#open.text, piece, MAX_RAW_TEXT)
    else this.folders.addHeadingText(piece)
  }

  /** A character reference goes to the anchor being read, else to a folder heading being read. */
  ontextentity(codepoint: number): void {
    const piece = String.fromCodePoint(codepoint)
    if (this.#open !== null) this.#open.text = append(this.#open.text, piece, MAX_RAW_TEXT)
    else this.folders.addHeadingText(piece)
  }

  onclosetag(start: number, end: number): void {
    const name = this.input.nameAt(start, end)
    if (name !== null && ENDS_ANCHOR.has(name)) this.#closeAnchor()
    if (name === 'h3') this.folders.endHeading()
    else if (name === 'dl') this.folders.closeList()
  }

  onend(): void {
    this.#closeAnchor()
  }
}
