/**
 * The page title of a link's URL, fetched by the service when a person asks: the link
 * dialog's "Fetch title", and the page facts link suggestions start from. The request goes through
 * the outbound rules (lib/outbound.ts: public addresses only unless the operator allows private
 * networks, every redirect hop checked), with a short overall timeout, and reads at most
 * PAGE_READ_BYTES of an HTML answer's head (lib/page-reader.ts: a stack-free tokenizer, never a
 * regular expression over markup), cleaned like every display text. Nothing of the page is stored
 * or logged.
 */
import type { Deps } from '../../deps.js'
import { AppError, invalidField } from '../../errors.js'
import { outboundGet, OutboundRefusedError } from '../../lib/outbound.js'
import { PAGE_READ_BYTES, readPageSummary, type PageSummary } from '../../lib/page-reader.js'
import { normalizeLinkUrl } from './url.js'

/** The whole fetch, redirects included. */
export const TITLE_TIMEOUT_MS = 5_000
/** The most of the page read; a title sits in the first few KiB of any page. */
export const TITLE_READ_BYTES = PAGE_READ_BYTES
const MAX_REDIRECTS = 3

export interface FetchedTitle {
  url: string
  title: string | null
}

function upstreamFailed(why: string): AppError {
  return new AppError('UPSTREAM_FAILED', { message: `The page could not be read: ${why}.` })
}

export async function fetchLinkTitle(deps: Deps, input: { url: string }): Promise<FetchedTitle> {
  const { url, title } = await fetchPageSummary(deps, input.url)
  return { url, title }
}

/**
 * The URL as it would be stored and what its page says of itself (all null for an answer that is
 * not HTML). Throws 400 on url for what the outbound rules refuse, UPSTREAM_FAILED when the page
 * cannot be read.
 */
export async function fetchPageSummary(
  deps: Deps,
  input: string,
): Promise<PageSummary & { url: string }> {
  const url = normalizeLinkUrl(input)
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
      return { url, title: null, description: null, siteName: null }
    }
    const body = response.body as ReadableStream<Uint8Array> | null
    return { url, ...(await readPageSummary(body, contentType)) }
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
