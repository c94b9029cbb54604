/**
 * The page title of a link's URL, fetched by the service when a person asks: the link
 * dialog's "Fetch title". The request goes through the outbound rules (lib/outbound.ts: public
 * addresses only unless the operator allows private networks, every redirect hop checked), with a
 * short overall timeout, and reads at most TITLE_READ_BYTES of an HTML answer — only its first
 * `<title>` is taken (read by htmlparser2's tokenizer, never a regular expression over markup),
 * cleaned like every display text. Nothing of the page is stored or logged.
 */
import { TextDecoder } from 'node:util'
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { outboundGet, OutboundRefusedError } from '../../lib/outbound.js'
import { isDisplayText } from '../../lib/schema-types.js'
import { normalizeLinkUrl } from './url.js'

/** The whole fetch, redirects included. */
export const TITLE_TIMEOUT_MS = 5_000
/** The most of the page read; a title sits in the first few KiB of any page. */
export const TITLE_READ_BYTES = 256 * 1024
const MAX_REDIRECTS = 3
const MAX_TITLE = 200
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu

export interface FetchedTitle {
  url: string
  title: string | null
}

function upstreamFailed(why: string): AppError {
  return new AppError('UPSTREAM_FAILED', { message: `The page could not be read: ${why}.` })
}

/** The charset a Content-Type names, when TextDecoder knows it; UTF-8 otherwise. */
function decoderFor(contentType: string): TextDecoder {
  const label = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder(label ?? 'utf-8')
  } catch {
    return new TextDecoder('utf-8')
  }
}

/** Reads the body until the first `<title>` has ended, the cap is reached or the body ends. */
async function readTitle(
  body: ReadableStream<Uint8Array> | null,
  decoder: TextDecoder,
): Promise<string | null> {
  if (body === null) return null
  const { Parser } = await import('htmlparser2')
  let inTitle = false
  let text = ''
  let done = false
  const parser = new Parser(
    {
      onopentagname(name) {
        if (name === 'title' && !done) inTitle = true
      },
      ontext(piece) {
        if (inTitle && text.length < 4 * MAX_TITLE) text += piece
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false
          done = true
        }
        // The title belongs to the head: a <title> inside the body (an SVG's) is not the page's.
        if (name === 'head') done = true
      },
    },
    { decodeEntities: true },
  )
  const reader = body.getReader()
  let read = 0
  try {
    while (!done && read < TITLE_READ_BYTES) {
      const { done: ended, value } = await reader.read()
      if (ended || value === undefined) break
      const piece =
        value.byteLength + read > TITLE_READ_BYTES
          ? value.subarray(0, TITLE_READ_BYTES - read)
          : value
      read += piece.byteLength
      parser.write(decoder.decode(piece, { stream: true }))
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const title = [...text.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim()]
    .slice(0, MAX_TITLE)
    .join('')
    .trim()
  return done && title !== '' && isDisplayText(title) ? title : null
}

export async function fetchLinkTitle(deps: Deps, input: { url: string }): Promise<FetchedTitle> {
  const url = normalizeLinkUrl(input.url)
  // A go-link template is not a page.
  if (/[{}]/.test(url)) throw invalidField('url', 'is a template; fetch the title of a page URL')
  const signal = AbortSignal.timeout(TITLE_TIMEOUT_MS)
  try {
    const { response } = await outboundGet(url, {
      policy: deps.config.outbound,
      signal,
      maxRedirects: MAX_REDIRECTS,
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' },
    })
    const contentType = response.headers.get('content-type') ?? ''
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel().catch(() => undefined)
      throw upstreamFailed(`the server answered ${response.status}`)
    }
    if (!/^\s*(text\/html|application\/xhtml\+xml)/i.test(contentType)) {
      await response.body?.cancel().catch(() => undefined)
      return { url, title: null }
    }
    return {
      url,
      title: await readTitle(
        response.body as ReadableStream<Uint8Array> | null,
        decoderFor(contentType),
      ),
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    if (
      error instanceof OutboundRefusedError ||
      (error as { cause?: unknown }).cause instanceof OutboundRefusedError
    ) {
      throw invalidField(
        'url',
        `cannot be fetched by this instance: ${(error instanceof OutboundRefusedError ? error : (error as { cause: Error }).cause).message}`,
      )
    }
    if (signal.aborted) throw upstreamFailed(`no answer within ${TITLE_TIMEOUT_MS / 1000} seconds`)
    throw upstreamFailed('the server could not be reached')
  }
}
