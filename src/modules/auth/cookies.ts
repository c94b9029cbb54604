/**
 * The session cookies of CONTRACT.md §4.2 and §4.5: `token` (the access JWT, HttpOnly) and
 * `csrf_token` (readable by the page's script, which echoes it in X-CSRF-Token). Cookies are read
 * only when a request carries no Authorization header, so API clients never pay for parsing them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie, stringifySetCookie, type SetCookie } from 'cookie'
import type { Deps } from '../../deps.js'

export const SESSION_COOKIE = 'token'
export const CSRF_COOKIE = 'csrf_token'
export const CSRF_HEADER = 'x-csrf-token'

export function readCookies(request: FastifyRequest): Record<string, string | undefined> {
  const header = request.headers.cookie
  return header === undefined ? {} : parseCookie(header)
}

/** A Set-Cookie value: SameSite=Lax, Secure when PUBLIC_URL is https; `maxAge` 0 clears the cookie. */
export function cookie(deps: Deps, name: string, value: string, httpOnly: boolean, maxAge: number, path = '/'): string {
  const attributes: SetCookie = { name, value, path, sameSite: 'lax', secure: deps.config.secureCookies, httpOnly, maxAge }
  return stringifySetCookie(attributes)
}

export function setSessionCookies(reply: FastifyReply, deps: Deps, session: { token: string; csrfToken: string }): void {
  const maxAge = deps.config.sessionTtlSeconds
  reply.header('set-cookie', [cookie(deps, SESSION_COOKIE, session.token, true, maxAge), cookie(deps, CSRF_COOKIE, session.csrfToken, false, maxAge)])
}

export function setCsrfCookie(reply: FastifyReply, deps: Deps, csrfToken: string): void {
  reply.header('set-cookie', cookie(deps, CSRF_COOKIE, csrfToken, false, deps.config.sessionTtlSeconds))
}

export function clearSessionCookies(reply: FastifyReply, deps: Deps): void {
  reply.header('set-cookie', [cookie(deps, SESSION_COOKIE, '', true, 0), cookie(deps, CSRF_COOKIE, '', false, 0)])
}
