/**
 * HTTP conventions for every response: the request id, security headers, and JSON-only bodies.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * Takes the caller's X-Request-Id when it is a sane token (so a proxy's id carries through to our
 * logs), otherwise makes one. Anything else is replaced: it would end up in every log line.
 */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
}

export function installHttpConventions(app: FastifyInstance, options: { hsts: boolean }): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-frame-options', 'DENY')
    // Responses carry personal data and credentials: no shared or browser cache may keep them.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
    }
    if (options.hsts) reply.header('strict-transport-security', 'max-age=31536000')
    return payload
  })

  // JSON only (CONTRACT.md §1): Fastify's built-in text/plain parser would let such bodies through.
  app.removeContentTypeParser('text/plain')
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // An empty body sent with a JSON content type is treated as no body, not as malformed JSON:
    // clients routinely send the header on bodiless POSTs.
    if (body === '') return done(null, undefined)
    parseJson(request, body as string, done)
  })
}
