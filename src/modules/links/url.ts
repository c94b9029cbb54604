/** The rules for what a link may point at and how its slug is matched. */
import { invalidField } from '../../errors.js'
import { looksLikeTemplate, normalizeTemplate } from '../../lib/go-template.js'

const MAX_URL_LENGTH = 2048
/**
 * A destination that is not an absolute http(s) URL: a format problem, so a client can say what to
 * enter.
 */
const URI = { format: 'uri' }

/**
 * An absolute http(s) URL without credentials, stored in its normalised form (WHATWG URL `href`):
 * ASCII only — the host in punycode, the rest percent-encoded — so it is always a valid Location
 * header for /go/{slug}, and what the user is sent to is exactly what was checked.
 */
export function normalizeLinkUrl(text: string): string {
  // A destination with placeholders is checked by the template language's own rules.
  if (looksLikeTemplate(text)) {
    const normalized = normalizeTemplate(text)
    if ('problem' in normalized) throw invalidField('url', normalized.problem)
    if (normalized.template.length > MAX_URL_LENGTH)
      throw invalidField(
        'url',
        `must be at most ${MAX_URL_LENGTH} characters long once normalised`,
        'too_long',
        { limit: MAX_URL_LENGTH },
      )
    return normalized.template
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalidField('url', 'must be an absolute http or https URL', 'format', URI)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidField('url', 'must be an absolute http or https URL', 'format', URI)
  // user:password@ in a shared link would hand the credentials to every member (and to logs).
  if (url.username !== '' || url.password !== '')
    throw invalidField('url', 'must not contain a user name or password')
  if (url.href.length > MAX_URL_LENGTH)
    throw invalidField(
      'url',
      `must be at most ${MAX_URL_LENGTH} characters long once normalised`,
      'too_long',
      { limit: MAX_URL_LENGTH },
    )
  return url.href
}

/**
 * Go-links match ignoring case: `/go/Docs` and `/go/docs` are the same go-link; with `fold` (the
 * instance's setting, slug-matching.ts) also ignoring "-" and "_": `/go/meeting-notes` is
 * `/go/meetingnotes`.
 */
export function slugKey<T extends string | null>(slug: T, fold = false): T {
  if (slug === null) return null as T
  const lower = slug.toLowerCase()
  return (fold ? lower.replace(/[-_]/g, '') : lower) as T
}
