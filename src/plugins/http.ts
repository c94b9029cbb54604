/**
 * HTTP conventions for every response: the request id, security headers, JSON-only bodies, and
 * path parameters that can name something.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Takes the caller's X-Request-Id when it is a sane token (so a proxy's id carries through to our
 * logs), otherwise makes one. Anything else is replaced: it would end up in every log line.
 */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes "trust the nearest N addresses": Fastify
 * itself trusts no forwarded header for a bare number, so `TRUST_PROXY=1` behind one reverse
 * proxy would otherwise give every client the proxy's address (rate limits, audit log) and ignore
 * X-Forwarded-Host. Direct clients that bypass the proxy can then forge the headers, which is why
 * the proxy's addresses are the stricter setting (README, "Behind a reverse proxy").
 */
export function trustProxyOption(
  trustProxy: false | number | string,
): false | string | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy
  return (_address, hop) => hop < trustProxy
}

/** The headers every response carries; also applied to errors answered before routing. */
export interface ResponseHeaderOptions {
  hsts: boolean
  /** Requests that never get HSTS even when `hsts` is on (the short go host's single label). */
  withoutHsts?: (request: FastifyRequest) => boolean
}

export function setResponseHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  options: ResponseHeaderOptions,
): void {
  reply.header('x-request-id', request.id)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('referrer-policy', 'no-referrer')
  reply.header('x-frame-options', 'DENY')
  // Responses carry personal data and credentials: no shared or browser cache may keep them.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
  }
  if (options.hsts && options.withoutHsts?.(request) !== true)
    reply.header('strict-transport-security', 'max-age=31536000')
}

export function installHttpConventions(app: FastifyInstance, options: ResponseHeaderOptions): void {
  // One synchronous hook for every response header: hooks are a measurable share of a request.
  app.addHook('onSend', (request, reply, payload, done) => {
    setResponseHeaders(request, reply, options)
    done(null, payload)
  })

  // A route that takes a body but got none sees {}, so a missing body reports its missing fields.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) return
    const defaultBody = async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {}
    }
    route.preValidation = [defaultBody, ...[route.preValidation ?? []].flat()]
  })

  // No id this service issues holds a control character, and PostgreSQL cannot even compare text
  // holding NUL: such a path parameter names nothing — 404 (docs/API.md#conventions), not a
  // database error. A callback hook, not an async one: it runs on every request with a parameter
  // (the go-link redirect among them), and an async hook costs a promise and a turn of the
  // microtask queue.
  app.addHook('onRoute', (route) => {
    if (!route.url.includes(':')) return
    const refuseControlCharacters = (
      request: FastifyRequest,
      _reply: FastifyReply,
      done: (error?: Error) => void,
    ) => {
      const params = request.params as Record<string, string>
      for (const name in params)
        if (CONTROL_CHARACTER.test(params[name]!)) return done(new AppError('NOT_FOUND'))
      done()
    }
    route.preValidation = [refuseControlCharacters, ...[route.preValidation ?? []].flat()]
  })

  // JSON only (docs/API.md#conventions): Fastify's built-in text/plain parser would let such bodies
  // through.
  app.removeContentTypeParser('text/plain')
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // An empty body sent with a JSON content type is treated as no body, not as malformed JSON:
    // clients routinely send the header on bodiless POSTs.
    if ((body as Buffer).length === 0) return done(null, undefined)
    let text: string
    try {
      // Invalid UTF-8 is refused rather than silently turned into U+FFFD and stored.
      text = strictUtf8.decode(body as Buffer)
    } catch {
      return done(
        Object.assign(new Error('The request body is not valid UTF-8.'), {
          statusCode: 400,
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        }),
        undefined,
      )
    }
    void parseJson(request, text, done)
  })
}
