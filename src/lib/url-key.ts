/**
 * The key under which two saved URLs count as the same page, for duplicate hints: the scheme and
 * host in lower case (as WHATWG URL gives them), no default port, no fragment, no `utm_*`
 * parameters, and no trailing slash on the path. Everything else — the path's case, the other
 * query parameters and their order — can change what a server answers, so it stays.
 */
import { looksLikeTemplate } from './go-template.js'

const TRACKING_PARAMETER = /^utm_/i

export function urlKey(url: string): string {
  // A template is its own key: its placeholders are not a page.
  if (looksLikeTemplate(url)) return url
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  const kept = [...parsed.searchParams].filter(([name]) => !TRACKING_PARAMETER.test(name))
  const query = kept.length === 0 ? '' : `?${new URLSearchParams(kept).toString()}`
  const path = parsed.pathname.replace(/\/+$/, '')
  return `${parsed.protocol}//${parsed.host}${path}${query}`
}
