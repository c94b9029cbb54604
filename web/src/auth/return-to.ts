/**
 * Where to go after signing in. Only same-origin relative paths of this service are honoured —
 * console pages and go-links — so a crafted link cannot send a person who just signed in to
 * another site (`//evil.example`, `/\evil.example`, `https://…`, `javascript:`) or to an API URL.
 */
const PAGE_ROOTS = ['/account', '/links', '/orgs', '/admin', '/invitations', '/verify-email']

export function safeReturnTo(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return null
  if (!value.startsWith('/') || value.startsWith('//')) return null
  // Browsers treat a backslash like a slash and drop tabs and newlines inside URLs.
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null
  let url: URL
  try {
    url = new URL(value, 'http://console.invalid')
  } catch {
    return null
  }
  if (url.origin !== 'http://console.invalid') return null
  const path = url.pathname
  const allowed =
    path === '/' ||
    (path.startsWith('/go/') && path.length > '/go/'.length) ||
    PAGE_ROOTS.some((root) => path === root || path.startsWith(`${root}/`))
  return allowed ? `${url.pathname}${url.search}${url.hash}` : null
}
