/**
 * What a web page says about itself in its head: its `<title>`, its description and its site name
 * (`<meta name="description">`, `og:description`, `og:site_name`).
 *
 * Read with htmlparser2's Tokenizer, never with a regular expression over the markup, and without
 * an element tree or stack: a parser that keeps open elements pays for each new one in the depth
 * reached, which a page of unclosed `<b>` makes quadratic. This reader keeps only the tag being
 * read and the three texts, each cut to a cap, so its work is linear in the bytes read, and it
 * stops at the end of the head (`</head>`, `<body>`) or at the byte cap.
 */
import { TextDecoder } from 'node:util'
import type { TokenizerCallbacks } from 'htmlparser2'
import { isDisplayText } from './schema-types.js'
import { appendCapped as append, AttributeCollector } from './tag-attributes.js'

/** The most of a page read; the head of any page sits in its first few KiB. */
export const PAGE_READ_BYTES = 256 * 1024
/** The longest title and site name kept, in characters. */
const MAX_TITLE = 200
const MAX_DESCRIPTION = 500
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu
/** No name this reader looks at is longer; a longer tag or attribute name is one it ignores. */
const MAX_NAME = 16
/** The attribute values of `<meta>` that are read, each up to its cap. */
const META_ATTRIBUTES: Record<string, number> = {
  name: 64,
  property: 64,
  content: 4 * MAX_DESCRIPTION,
}
/** Tags that end the head: the page's own title and metadata come before them. */
const ENDS_HEAD = new Set(['body', 'svg', 'math'])

export interface PageSummary {
  title: string | null
  description: string | null
  siteName: string | null
}

/** The charset a Content-Type names, when TextDecoder knows it; UTF-8 otherwise. */
export function decoderFor(contentType: string): TextDecoder {
  const label = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder(label ?? 'utf-8')
  } catch {
    return new TextDecoder('utf-8')
  }
}

/** One line of showable text, cut to `max` characters; null when nothing showable is left. */
function cleaned(text: string | null, max: number): string | null {
  if (text === null) return null
  const line = [...text.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim()]
    .slice(0, max)
    .join('')
    .trim()
  return line !== '' && isDisplayText(line) ? line : null
}

/** The tokenizer's callbacks: the open tag's kept attributes and the texts found so far. */
class HeadTokens implements TokenizerCallbacks {
  /** All input so far (at most PAGE_READ_BYTES characters): the tokenizer reports positions. */
  input = ''
  headEnded = false
  title: string | null = null
  #titleText: string | null = null
  #description: string | null = null
  #ogDescription: string | null = null
  #siteName: string | null = null
  #tag: string | null = null
  readonly #attributes = new AttributeCollector({
    slice: (start, end) => this.input.slice(start, end),
  })

  summary(): PageSummary {
    return {
      title: cleaned(this.title, MAX_TITLE),
      description: cleaned(this.#description ?? this.#ogDescription, MAX_DESCRIPTION),
      siteName: cleaned(this.#siteName, MAX_TITLE),
    }
  }

  #name(start: number, end: number): string | null {
    return end - start > MAX_NAME ? null : this.input.slice(start, end).toLowerCase()
  }

  #endOfOpenTag(): void {
    const attributes = this.#attributes.take()
    if (this.#tag === 'meta') {
      const content = attributes.get('content')
      const key = (attributes.get('name') ?? attributes.get('property'))?.toLowerCase()
      if (content !== undefined) {
        if (key === 'description') this.#description ??= content
        else if (key === 'og:description') this.#ogDescription ??= content
        else if (key === 'og:site_name') this.#siteName ??= content
      }
    }
    this.#tag = null
  }

  onopentagname(start: number, end: number): void {
    // What follows the head in the same chunk is not the head's.
    this.#tag = this.headEnded ? null : this.#name(start, end)
    if (this.#tag === null) return
    if (ENDS_HEAD.has(this.#tag)) this.headEnded = true
    // Only the first title counts, as in a browser.
    else if (this.#tag === 'title' && this.title === null && this.#titleText === null)
      this.#titleText = ''
  }

  onattribname(start: number, end: number): void {
    const name = this.#tag === 'meta' ? this.#name(start, end) : null
    this.#attributes.begin(name, name === null ? undefined : META_ATTRIBUTES[name])
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

  ontext(start: number, end: number): void {
    if (this.#titleText !== null)
      this.#titleText = append(this.#titleText, this.input.slice(start, end), 4 * MAX_TITLE)
  }

  ontextentity(codepoint: number): void {
    if (this.#titleText !== null)
      this.#titleText = append(this.#titleText, String.fromCodePoint(codepoint), 4 * MAX_TITLE)
  }

  onclosetag(start: number, end: number): void {
    const name = this.#name(start, end)
    if (name === 'title' && this.#titleText !== null) {
      this.title = this.#titleText
      this.#titleText = null
    } else if (name === 'head') this.headEnded = true
  }

  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  oncomment(): void {}
  oncdata(): void {}
  onend(): void {}
}

/**
 * Reads the body until the head has ended, PAGE_READ_BYTES are read or the body ends, then stops
 * reading. A title counts only once its `</title>` is read.
 */
export async function readPageSummary(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
): Promise<PageSummary> {
  const tokens = new HeadTokens()
  if (body === null) return tokens.summary()
  const { Tokenizer } = await import('htmlparser2')
  const tokenizer = new Tokenizer({ decodeEntities: true }, tokens)
  const decoder = decoderFor(contentType)
  const reader = body.getReader()
  let read = 0
  try {
    while (!tokens.headEnded && read < PAGE_READ_BYTES) {
      const { done, value } = await reader.read()
      if (done || value === undefined) break
      const piece =
        value.byteLength + read > PAGE_READ_BYTES
          ? value.subarray(0, PAGE_READ_BYTES - read)
          : value
      read += piece.byteLength
      const text = decoder.decode(piece, { stream: true })
      tokens.input += text
      tokenizer.write(text)
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  return tokens.summary()
}
