/**
 * The one HTTP client of the console: openapi-fetch over the types generated from the service's
 * OpenAPI document (schema.d.ts), so a changed response shape fails the type check.
 *
 * Credentials: the HttpOnly `token` cookie, sent by the browser; nothing is kept in localStorage.
 * Unsafe methods carry the double-submit header X-CSRF-Token, copied from the `csrf_token` cookie
 * that sign-in sets (the API checks that both match and belong to the session). Over https the
 * service names its cookies `__Host-…` (docs/API.md#access-jwt-and-sessions); browsers refuse that
 * prefix on http, so the prefixed cookie, when present, is the one the service reads.
 */
import createClient, { type Middleware } from 'openapi-fetch'
import type { paths } from './schema'
import { ApiError, NetworkError } from './errors'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return decodeURIComponent(value.join('='))
  }
  return null
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (SAFE_METHODS.has(request.method)) return request
    const token = readCookie('__Host-csrf_token') ?? readCookie('csrf_token')
    if (token !== null) request.headers.set('x-csrf-token', token)
    return request
  },
}

export const client = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
})
client.use(csrf)

interface Result<T> {
  data?: T
  error?: unknown
  response: Response
}

/** The data of a successful answer; otherwise throws ApiError (the envelope) or NetworkError. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>
  try {
    result = await call
  } catch (cause) {
    throw new NetworkError(cause)
  }
  if (result.response.ok) return result.data as T
  throw ApiError.from(
    result.response.status,
    result.error,
    result.response.headers.get('retry-after'),
  )
}
