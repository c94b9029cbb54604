/**
 * The session cookies of CONTRACT.md §4.2 and §4.5: `token` (the access JWT, HttpOnly) and
 * `csrf_token` (readable by the page's script, which echoes it in X-CSRF-Token).
 */
import type { FastifyReply } from 'fastify'
import type {} from '@fastify/cookie'
import type { Deps } from '../../deps.js'

export const SESSION_COOKIE = 'token'
export const CSRF_COOKIE = 'csrf_token'
export const CSRF_HEADER = 'x-csrf-token'

function baseAttributes(deps: Deps) {
  return { path: '/', sameSite: 'lax' as const, secure: deps.config.secureCookies }
}

export function setSessionCookies(reply: FastifyReply, deps: Deps, session: { token: string; csrfToken: string }): void {
  const maxAge = deps.config.sessionTtlSeconds
  reply.setCookie(SESSION_COOKIE, session.token, { ...baseAttributes(deps), httpOnly: true, maxAge })
  reply.setCookie(CSRF_COOKIE, session.csrfToken, { ...baseAttributes(deps), httpOnly: false, maxAge })
}

export function setCsrfCookie(reply: FastifyReply, deps: Deps, csrfToken: string): void {
  reply.setCookie(CSRF_COOKIE, csrfToken, { ...baseAttributes(deps), httpOnly: false, maxAge: deps.config.sessionTtlSeconds })
}

export function clearSessionCookies(reply: FastifyReply, deps: Deps): void {
  reply.clearCookie(SESSION_COOKIE, { ...baseAttributes(deps), httpOnly: true })
  reply.clearCookie(CSRF_COOKIE, { ...baseAttributes(deps), httpOnly: false })
}
