/**
 * Every failure leaves as the envelope of docs/API.md#errors: AppErrors as they are, schema
 * failures as VALIDATION_FAILED with every field, body-parsing failures as their own reasons,
 * unknown routes as 404/405, and anything else as a generic 500 whose cause is logged under the
 * request id.
 */
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/client.js'
import { AppError } from '../errors.js'
import type { ErrorEnvelope } from './error-envelope.js'
import type { RouteTable } from './route-table.js'
import { toFieldProblems } from './validation.js'

// Not `import … from 'node:http'`: an ES import of node:http reads every export, and its lazy
// WebSocket export loads Node's bundled undici (≈0.7 MB of source) that nothing here uses.
const { STATUS_CODES } = process.getBuiltinModule('node:http')

const FRAMEWORK_ERRORS: Record<string, () => AppError> = {
  FST_ERR_BAD_URL: () =>
    new AppError('VALIDATION_FAILED', { message: 'The request URL is malformed.' }),
  // A path segment longer than any id we issue cannot name anything: not found, like a malformed
  // id.
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('NOT_FOUND'),
}

const CONTENT_ERRORS: Record<string, () => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('MALFORMED_JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError('MALFORMED_JSON'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new AppError('MALFORMED_JSON', {
      message: 'The request body does not match its Content-Length.',
    }),
}

/** Maps whatever was thrown to an AppError; null when it is unexpected (a bug or an outage). */
export function toAppError(error: FastifyError): AppError | null {
  if (error instanceof AppError) return error
  if (error.validation) {
    return new AppError('VALIDATION_FAILED', {
      details: toFieldProblems(error.validation, error.validationContext ?? 'body'),
    })
  }
  const known = error.code
    ? (CONTENT_ERRORS[error.code] ?? FRAMEWORK_ERRORS[error.code])
    : undefined
  if (known) return known()
  // JSON.parse failures (and prototype-poisoning refusals) from the body parser.
  if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP'))
    return new AppError('MALFORMED_JSON')
  if (isDatabaseUnavailable(error))
    return new AppError('SERVICE_UNAVAILABLE', {
      message: 'The database is not answering. Try again shortly.',
    })
  const status = error.statusCode ?? 500
  if (status === 404) return new AppError('NOT_FOUND')
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE')
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE')
  if (status === 429) return new AppError('RATE_LIMITED')
  // Any other client error the framework detects (bad URL encoding, bad header) is a malformed
  // request.
  if (status >= 400 && status < 500)
    return new AppError('VALIDATION_FAILED', { message: 'The request is malformed.' })
  return null
}

export function envelopeOf(error: AppError): ErrorEnvelope {
  return {
    error: STATUS_CODES[error.status] ?? 'Error',
    message: error.message,
    code: error.status,
    reason: error.reason,
    // Every field problem carries a code; a service's own rule without one is `invalid`.
    ...(error.details !== undefined && {
      details: Array.isArray(error.details)
        ? error.details.map((problem) => ({ ...problem, code: problem.code ?? 'invalid' }))
        : // A string (a field's name) or an object ({ required } of INSUFFICIENT_SCOPE).
          error.details,
    }),
    ...(error.retryAfter !== undefined && { retryAfter: error.retryAfter }),
  }
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  reply.errorReason = error.reason
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter))
  // RFC 9110 §15.5.2: a 401 names the scheme the client should use.
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="switchboard"')
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelopeOf(error))
}

function logUnexpected(request: FastifyRequest, error: FastifyError): void {
  // Only the type, code and message: stack traces (and any values they might quote) stay out of
  // the log unless the operator asks for them with LOG_LEVEL=debug.
  request.log.error(
    { error: { type: error.name, code: error.code, message: error.message } },
    'request failed unexpectedly',
  )
  request.log.debug({ stack: error.stack }, 'stack of the unexpected failure')
}

/**
 * Errors Node's HTTP parser meets before Fastify sees a request (headers over 16 KiB, broken
 * HTTP): answered on the socket, still with the envelope. The catalogue has no 431, so oversized
 * headers are a 413 like an oversized body.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const appError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('PAYLOAD_TOO_LARGE', {
          message: 'The request headers are larger than 16 KiB.',
        })
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('REQUEST_TIMEOUT')
        : new AppError('VALIDATION_FAILED', { message: 'The request is not valid HTTP.' })
  const body = JSON.stringify(envelopeOf(appError))
  socket.end(
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  )
  // Closed once the answer is written, whatever the peer does (a slow client may never close).
  socket.destroySoon()
}

/** Errors Fastify raises while routing (bad URL encoding, over-long path parameter). */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  void sendError(reply, toAppError(error) ?? new AppError('INTERNAL'))
}

const OUTAGE_WARNING_INTERVAL_MS = 10_000

/** `routes` tells "no such resource" (404) from "no such method on this resource" (405). */
/** Answers a browser's page request at an unknown address (the console's not-found page). */
export type PageNotFound = (request: FastifyRequest, reply: FastifyReply) => unknown

/**
 * Paths that are never console pages: their unknown addresses keep the JSON 404 for every client.
 */
const NOT_PAGES = /^\/(api|scim|go|assets|\.well-known)(\/|$)/

/**
 * A browser navigating to a mistyped address (it asks for text/html) sees the console's
 * not-found page instead of raw JSON; scripts, curl and fetch calls keep the JSON envelope.
 */
function wantsPage(request: FastifyRequest, path: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  return !NOT_PAGES.test(path) && (request.headers.accept ?? '').includes('text/html')
}

export function installErrorHandling(
  app: FastifyInstance,
  routes: RouteTable,
): { setPageNotFound: (handler: PageNotFound) => void } {
  let pageNotFound: PageNotFound | null = null
  // A database outage fails every request; one warning per interval tells the operator without
  // flooding the log.
  let lastOutageWarning = 0
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error)
    if (
      appError?.reason === 'SERVICE_UNAVAILABLE' &&
      !(error instanceof AppError) &&
      Date.now() - lastOutageWarning > OUTAGE_WARNING_INTERVAL_MS
    ) {
      lastOutageWarning = Date.now()
      request.log.warn(
        { error: { type: error.name, code: error.code, message: error.message } },
        'the database is not answering; answering 503',
      )
    }
    if (appError === null) {
      logUnexpected(request, error)
      return sendError(reply, new AppError('INTERNAL'))
    }
    // A route with its own body limit (the link import) names that limit, not the default one.
    const limit = request.routeOptions.bodyLimit
    if (
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' &&
      limit !== undefined &&
      limit !== app.initialConfig.bodyLimit
    ) {
      return sendError(
        reply,
        new AppError('PAYLOAD_TOO_LARGE', {
          message: `The request body is larger than ${Math.round(limit / 1024)} KiB.`,
        }),
      )
    }
    return sendError(reply, appError)
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/'
    const allowed = routes.methodsFor(path)
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '))
      return sendError(reply, new AppError('METHOD_NOT_ALLOWED'))
    }
    if (pageNotFound !== null && wantsPage(request, path)) return pageNotFound(request, reply)
    return sendError(reply, new AppError('NOT_FOUND'))
  })
  return {
    setPageNotFound: (handler) => {
      pageNotFound = handler
    },
  }
}
