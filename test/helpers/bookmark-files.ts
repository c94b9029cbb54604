/**
 * Bookmark files for the import tests: what browsers write — Firefox's export with a
 * favicon per bookmark as a data URI, folders nested in unclosed `<DL><p>` — and what an attacker
 * writes instead.
 */
import { randomBytes } from 'node:crypto'

export const DOCTYPE = '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n'

const HEADER = `${DOCTYPE}<!-- This is an automatically generated file.
     It will be read and overwritten.
     DO NOT EDIT! -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'self'; script-src 'none'; img-src data: *; object-src 'none'"></meta>
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks Menu</H1>

<DL><p>
`

/** A PNG-sized favicon as Firefox writes it: `data:image/png;base64,…` of about `bytes` bytes. */
function favicon(bytes: number): string {
  return `data:image/png;base64,${randomBytes(Math.floor((bytes * 3) / 4)).toString('base64')}`
}

export interface FirefoxExportOptions {
  entries: number
  /** Size of each favicon's data URI in bytes (Firefox: 1–10 KB); 0 for bookmarks without one. */
  iconBytes: number
  /** Bookmarks per folder; folders nest one level per folder, as a menu's subfolders do. */
  perFolder?: number
  /** First number in the bookmarks' URLs, so several files hold different links. */
  start?: number
}

/**
 * A bookmark file shaped like Firefox's export: folders (`<DT><H3>` followed by a nested
 * `<DL><p>`), every bookmark with ADD_DATE, LAST_MODIFIED, ICON_URI and an ICON data URI, some with
 * SHORTCUTURL and TAGS, entities in titles.
 */
export function firefoxExport({
  entries,
  iconBytes,
  perFolder = 25,
  start = 0,
}: FirefoxExportOptions): string {
  const parts = [HEADER]
  let depth = 1
  for (let i = 0; i < entries; i++) {
    if (i % perFolder === 0 && i > 0) {
      const indent = '    '.repeat(depth)
      parts.push(
        `${indent}<DT><H3 ADD_DATE="1700000000" LAST_MODIFIED="1700000001">Folder ${i / perFolder}</H3>\n${indent}<DL><p>\n`,
      )
      depth++
    }
    const n = start + i
    const indent = '    '.repeat(depth)
    const keyword = n % 10 === 0 ? ` SHORTCUTURL="kw${n}"` : ''
    const tags = n % 7 === 0 ? ` TAGS="reading,team ${n % 3}"` : ''
    const icon = iconBytes > 0 ? ` ICON="${favicon(iconBytes)}"` : ''
    parts.push(
      `${indent}<DT><A HREF="https://site${n}.example.org/path/${n}?q=a&amp;b=${n}" ADD_DATE="1700000000" LAST_MODIFIED="1700000002" ` +
        `ICON_URI="https://site${n}.example.org/favicon.ico"${icon}${keyword}${tags}>Page ${n} &mdash; Caf&eacute; &amp; more</A>\n`,
    )
  }
  for (; depth > 0; depth--) parts.push(`${'    '.repeat(depth - 1)}</DL><p>\n`)
  return parts.join('')
}

/** `bytes` of `<DL><p>` after the doctype, never closed: the file that froze the service. */
export function unclosedLists(bytes: number): string {
  return DOCTYPE + '<DL><p>'.repeat(Math.ceil((bytes - DOCTYPE.length) / 7))
}

/**
 * Nested elements of every kind that a tree-building parser keeps open, with anchors buried inside.
 */
export function deepNesting(bytes: number): string {
  const unit = '<DL><DT><H3>f</H3><DD><div><span><b><i><p>'
  const anchor = '<A HREF="https://deep.example/">deep</A>'
  const repeats = Math.ceil((bytes - DOCTYPE.length - anchor.length) / unit.length)
  return DOCTYPE + unit.repeat(repeats) + anchor
}

/**
 * One anchor whose attributes are megabytes long (a HREF that is no URL, an ICON, an unknown one).
 */
export function hugeAttributes(bytes: number): string {
  const each = Math.floor(bytes / 3)
  return (
    `${DOCTYPE}<DL><p><DT><A HREF="https://huge.example/${'h'.repeat(each)}" ICON="${'i'.repeat(each)}" DATA-X='${'x'.repeat(each)}'>Huge</A>\n` +
    '<DT><A HREF="https://after.example/">After</A>\n</DL><p>\n'
  )
}
