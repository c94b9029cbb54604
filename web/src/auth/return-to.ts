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

const AFTER_PROVIDER = 'switchboard.return-after-provider'

/**
 * Where to go once an identity provider's sign-in is through: the provider's callback lands on the
 * console's home (it carries no return address), which asks `takeRememberedReturnTo`. Kept for
 * this tab only; an unsafe or absent address forgets any earlier one.
 */
export function rememberReturnTo(value: string | undefined): void {
  try {
    const safe = safeReturnTo(value)
    if (safe === null) window.sessionStorage.removeItem(AFTER_PROVIDER)
    else window.sessionStorage.setItem(AFTER_PROVIDER, safe)
  } catch {
    // Storage refused (private mode): the person lands on the home page instead.
  }
}

/** The address `rememberReturnTo` kept, once: reading forgets it. */
export function takeRememberedReturnTo(): string | null {
  try {
    const value = window.sessionStorage.getItem(AFTER_PROVIDER)
    window.sessionStorage.removeItem(AFTER_PROVIDER)
    return safeReturnTo(value)
  } catch {
    return null
  }
}
