/**
 * The session cookies of docs/API.md#password-sign-in and #csrf: `token` (the access JWT, HttpOnly)
 * and `csrf_token` (readable by the page's script, which echoes it in X-CSRF-Token). Cookies are
 * read only when a request carries no Authorization header, so API clients never pay for parsing
 * them.
 *
 * When PUBLIC_URL is https every cookie's name carries the `__Host-` prefix (RFC 6265bis §4.1.3.2):
 * the browser then accepts it only with Secure, Path=/ and no Domain, so neither
 * a sibling subdomain nor a plain-http page on the same host can set or shadow it (cookie tossing:
 * planting an attacker's session, CSRF token or sign-in state). Readers accept only the prefixed
 * name then — an unprefixed cookie is exactly what a tossing attacker can plant. On http (a local
 * instance) browsers refuse the prefix, so the names stay as they were.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie, stringifySetCookie, type SetCookie } from 'cookie'
import type { Deps } from '../deps.js'

export const SESSION_COOKIE = 'token'
export const CSRF_COOKIE = 'csrf_token'
export const CSRF_HEADER = 'x-csrf-token'

/**
 * The name a cookie has on this instance: `__Host-<name>` when PUBLIC_URL is https, else `<name>`.
 */
export function cookieName(deps: Deps, name: string): string {
  return deps.config.secureCookies ? `__Host-${name}` : name
}

/**
 * One cookie of the request by its unprefixed name (read under the name this instance gives it).
 */
export function readCookie(request: FastifyRequest, deps: Deps, name: string): string | undefined {
  return readCookies(request)[cookieName(deps, name)]
}

export function readCookies(request: FastifyRequest): Record<string, string | undefined> {
  const header = request.headers.cookie
  return header === undefined ? {} : parseCookie(header)
}

/**
 * A Set-Cookie value: SameSite=Lax; on https Secure, `__Host-` and Path=/ (the prefix requires it,
 * so a narrower `path` applies on http only); `maxAge` 0 clears the cookie.
 */
export function cookie(
  deps: Deps,
  name: string,
  value: string,
  httpOnly: boolean,
  maxAge: number,
  path = '/',
): string {
  const secure = deps.config.secureCookies
  const attributes: SetCookie = {
    name: cookieName(deps, name),
    value,
    path: secure ? '/' : path,
    sameSite: 'lax',
    secure,
    httpOnly,
    maxAge,
  }
  return stringifySetCookie(attributes)
}

export function setSessionCookies(
  reply: FastifyReply,
  deps: Deps,
  session: { token: string; csrfToken: string },
): void {
  const maxAge = deps.config.sessionTtlSeconds
  reply.header('set-cookie', [
    cookie(deps, SESSION_COOKIE, session.token, true, maxAge),
    cookie(deps, CSRF_COOKIE, session.csrfToken, false, maxAge),
  ])
}

export function setCsrfCookie(reply: FastifyReply, deps: Deps, csrfToken: string): void {
  reply.header(
    'set-cookie',
    cookie(deps, CSRF_COOKIE, csrfToken, false, deps.config.sessionTtlSeconds),
  )
}

export function clearSessionCookies(reply: FastifyReply, deps: Deps): void {
  reply.header('set-cookie', [
    cookie(deps, SESSION_COOKIE, '', true, 0),
    cookie(deps, CSRF_COOKIE, '', false, 0),
  ])
}
