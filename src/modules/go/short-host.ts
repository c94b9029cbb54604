/**
 * The short go host (GO_HOSTS): `http://go/<slug>[/<rest>][?<query>]` answers a redirect to
 * `${PUBLIC_URL}/go/<slug>[/<rest>][?<query>]`, and `/` to the console's Links page. Nothing else
 * is served on such a host — no API, no console, no cookie read or set, no HSTS — so a name that
 * people type without a scheme never carries a credential (docs/API.md#the-short-go-host).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** `.` and `..` as a browser reads them, percent-encoded or not. */
const DOT_SEGMENT = /^(\.|%2e){1,2}$/i

export type ShortHostAnswer = { status: 302 | 308; location: string } | { status: 404 }

/**
 * Where a request to the short host goes. `rawUrl` is the request target as sent, kept byte for
 * byte after `/go`; the answer's `Location` therefore always starts with `${publicUrl}/go/` (so
 * `//evil.example` stays on the instance). A target that could climb out of `/go/` once a browser
 * resolves it (dot segments, backslashes) or is not a path at all names no link: 404.
 */
export function shortHostAnswer(
  method: string,
  rawUrl: string,
  publicUrl: string,
): ShortHostAnswer {
  if (!rawUrl.startsWith('/')) return { status: 404 }
  const queryAt = rawUrl.indexOf('?')
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt)
  const query = queryAt === -1 ? '' : rawUrl.slice(queryAt)
  const status = method === 'GET' || method === 'HEAD' ? 302 : 308
  if (path === '/') return { status, location: `${publicUrl}/links` }
  const segments = path.slice(1).split('/')
  if (path.includes('\\') || segments.some((segment) => DOT_SEGMENT.test(segment)))
    return { status: 404 }
  return { status, location: `${publicUrl}/go${path}${query}` }
}

/**
 * Answers every request whose host (the forwarded one under TRUST_PROXY, as everywhere) is a
 * short host, before any other hook: authentication, sessions and the console never see it.
 */
export function installShortHost(
  app: FastifyInstance,
  options: { hosts: readonly string[]; publicUrl: string },
): void {
  if (options.hosts.length === 0) return
  const hosts = new Set(options.hosts)
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (!hosts.has(request.hostname.toLowerCase())) return done()
    const answer = shortHostAnswer(request.method, request.raw.url ?? '', options.publicUrl)
    if (answer.status === 404) {
      void reply.code(404).type('text/plain; charset=utf-8').send('No such go-link address.\n')
    } else {
      void reply.code(answer.status).header('location', answer.location).send()
    }
  })
}

/** Whether a request came to a short host (they never get HSTS: a single-label name). */
export function shortHostMatcher(hosts: readonly string[]): (request: FastifyRequest) => boolean {
  const set = new Set(hosts)
  return (request) => set.size > 0 && set.has(request.hostname.toLowerCase())
}
