/**
 * The Netscape bookmark file (`<!DOCTYPE NETSCAPE-Bookmark-file-1>`) that every browser exports
 * and imports. Read with htmlparser2 — a maintained, forgiving HTML tokenizer, loaded only when an
 * import needs it — since the format is loose HTML (unclosed `<DT>` and `<p>`), never with a
 * regular expression over the markup.
 */
import type { BookmarkCandidate } from './candidate.js'

const DOCTYPE = /^!doctype\s+netscape-bookmark-file/i

export interface ParsedBookmarkFile {
  /** The file declares itself a bookmark file. */
  isBookmarkFile: boolean
  bookmarks: BookmarkCandidate[]
}

/**
 * Every `<A>` of the file in order: HREF, its text as the title, Firefox's SHORTCUTURL (a keyword,
 * the browser's own go-link) as the slug and its TAGS (comma-separated) as tags. Folders (`<H3>`)
 * are not turned into tags: a browser's folder tree is not a set of labels.
 */
export async function parseNetscapeBookmarks(html: string): Promise<ParsedBookmarkFile> {
  const { Parser } = await import('htmlparser2')
  const bookmarks: BookmarkCandidate[] = []
  let isBookmarkFile = false
  let open: { href: string | undefined; shortcut: string | undefined; tags: string | undefined; text: string } | null = null
  const parser = new Parser(
    {
      onprocessinginstruction(_name, data) {
        if (DOCTYPE.test(data)) isBookmarkFile = true
      },
      onopentag(name, attributes) {
        if (name !== 'a') return
        open = { href: attributes.href, shortcut: attributes.shortcuturl, tags: attributes.tags, text: '' }
      },
      ontext(text) {
        if (open !== null) open.text += text
      },
      onclosetag(name) {
        if (name !== 'a' || open === null) return
        const { href, shortcut, tags, text } = open
        open = null
        // An anchor without HREF is not a bookmark (some exports write named anchors).
        if (href === undefined) return
        bookmarks.push({
          url: href,
          title: text,
          slug: shortcut === undefined || shortcut.trim() === '' ? null : shortcut.trim(),
          tags: tags === undefined ? [] : tags.split(','),
          forwardingEnabled: true,
        })
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return { isBookmarkFile, bookmarks }
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
