/**
 * URLs as people read and type them. The API stores a link's URL encoded (the host in
 * punycode, the rest percent-encoded: always a valid redirect); the console shows it readable —
 * `https://bücher.example/Straße` — and sends what the person typed, which the API encodes again.
 * Completing `example.com/x` to `https://example.com/x` happens here, before the API's check.
 */
import { toUnicode } from 'punycode'

/** The URL with its host and path decoded for reading; the text as it is when it is not a URL. */
export function readableUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  let host = parsed.host
  try {
    host = toUnicode(parsed.host)
  } catch {
    // Not valid punycode: shown as stored.
  }
  const rest = url.slice(url.indexOf(parsed.host) + parsed.host.length)
  let readableRest = rest
  try {
    // decodeURI keeps reserved characters (/ ? # & =) encoded, so the shown URL means the same.
    readableRest = decodeURI(rest)
  } catch {
    // A malformed escape: shown as stored.
  }
  // A decoded space or control character would make the text ambiguous: those stay encoded.
  if (/[\s\p{Cc}\p{Cf}]/u.test(readableRest)) readableRest = rest
  return `${parsed.protocol}//${host}${readableRest}`
}

/**
 * `example.com/x` → `https://example.com/x`; anything with a scheme (or not host-like) as typed.
 */
export function withScheme(text: string): string {
  const trimmed = text.trim()
  if (
    trimmed === '' ||
    /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ||
    /^(javascript|data|mailto|tel|ftp|file|about|blob):/i.test(trimmed)
  )
    return trimmed
  if (trimmed.startsWith('//')) return `https:${trimmed}`
  // A host: a name with a dot (any script), localhost, or an address; then optional port and path.
  return /^([\p{L}\p{N}-]+\.)+[\p{L}\p{N}-]+(:\d+)?([/?#]|$)|^localhost(:\d+)?([/?#]|$)|^\[[0-9a-f:]+\](:\d+)?([/?#]|$)/iu.test(
    trimmed,
  )
    ? `https://${trimmed}`
    : trimmed
}
