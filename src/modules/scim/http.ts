/**
 * The /scim/v2 context: its own credential, media type, errors and rate limit. Registered beside
 * the API's context rather than inside it, so the API's authentication hook never runs here (a
 * session or personal token answers 401 under /scim/v2) and this hook never runs on /api.
 *
 * - Authentication: `Authorization: Bearer scim_…` only (credentials.service.ts); anything else is
 *   401 with `WWW-Authenticate: Bearer` (RFC 7644 §2).
 * - Every answer is `application/scim+json` (RFC 7644 §3.1); requests may send it or
 *   `application/json`.
 * - Every failure, including schema validation, malformed JSON and unknown paths, is a SCIM Error
 *   resource (errors.ts).
 * - SCIM_RATE_LIMIT requests per minute per credential, counted in the shared counters (Redis when
 *   configured), so one identity provider's import cannot starve the instance.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { toAppError } from '../../plugins/errors.js'
import { chargeFailedAuthentication } from '../../plugins/rate-limit.js'
import type { RequestContext } from '../../identity/caller.js'
import { authenticateScimToken } from './credentials.service.js'
import type { ScimCredentialRow } from './credentials.repo.js'
import { ScimError, scimErrorBody } from './errors.js'
import { recordScimRequest } from './requests.service.js'

export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8'
const BEARER = /^Bearer +([\x21-\x7e]+)$/i
const MINUTE = 60_000

declare module 'fastify' {
  interface FastifyRequest {
    scimCredential: ScimCredentialRow | null
    /** The scimType of the error answered, for the request log. */
    scimType: string | null
    /** What a 409 uniqueness collided on (userName or displayName), for the request log. */
    scimSubject: string | null
  }
}

/** Who acts in a SCIM request: the audit trail names the credential, not a person. */
export interface ScimActor {
  credential: ScimCredentialRow
  ctx: RequestContext
}

export function scimActorOf(request: FastifyRequest): ScimActor {
  if (request.scimCredential === null) throw new ScimError(401, 'A SCIM credential is required.')
  return {
    credential: request.scimCredential,
    ctx: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
  }
}

/**
 * Anything thrown under /scim/v2, as a SCIM error (null for the unexpected: a bug or an outage).
 */
export function toScimError(error: FastifyError): ScimError | null {
  if (error instanceof ScimError) return error
  if (error.validation) {
    const detail = error.validation
      .map(
        (problem) =>
          `${problem.instancePath || error.validationContext || 'request'} ${problem.message ?? 'is invalid'}`,
      )
      .join('; ')
    return new ScimError(400, detail, 'invalidValue')
  }
  const appError = toAppError(error)
  if (appError === null) return null
  if (appError.reason === 'MALFORMED_JSON')
    return new ScimError(400, appError.message, 'invalidSyntax')
  if (appError.reason === 'LAST_ADMIN')
    return new ScimError(
      409,
      'The last active administrator cannot be removed or deactivated.',
      'mutability',
    )
  if (appError.reason === 'LAST_OWNER')
    return new ScimError(409, 'The user is the only owner of an organization.', 'mutability')
  return new ScimError(appError.status, appError.message, undefined, appError.retryAfter)
}

function sendScimError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ScimError,
): FastifyReply {
  reply.errorReason = `SCIM_${error.status}`
  request.scimType = error.scimType ?? null
  request.scimSubject = error.scimType === 'uniqueness' ? error.subject : null
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter))
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="switchboard-scim"')
  return reply.code(error.status).type(SCIM_MEDIA_TYPE).send(scimErrorBody(error))
}

export function installScimHttp(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('scimCredential', null)
  app.decorateRequest('scimType', null)
  app.decorateRequest('scimSubject', null)

  // The same strict JSON parsing as application/json (plugins/http.ts), under SCIM's media type.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser(
    'application/scim+json',
    { parseAs: 'string' },
    (request, body, done) => {
      if (body === '') return done(null, undefined)
      void parseJson(request, body as string, done)
    },
  )

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization
    const token = header === undefined ? null : (BEARER.exec(header.trim())?.[1] ?? null)
    const credential = token === null ? null : await authenticateScimToken(deps, token)
    if (credential === null) {
      // Counted against the IP's general limit like any failed authentication (429 once spent).
      await chargeFailedAuthentication(deps.counters, request.ip, deps.config.rateLimitGeneral)
      throw new ScimError(
        401,
        'A valid SCIM credential is required (Authorization: Bearer scim_…).',
      )
    }
    const state = await deps.counters.increment(`rl:scim:${credential.id}`, MINUTE)
    if (state.count > deps.config.scimRateLimit) {
      throw new ScimError(
        429,
        'Too many SCIM requests for this credential; try again shortly.',
        undefined,
        Math.max(1, Math.ceil(state.resetInMs / 1000)),
      )
    }
    request.scimCredential = credential
  })

  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('content-type', SCIM_MEDIA_TYPE)
    done(null, payload)
  })

  // The request log (requests.service.ts), written after the answer has gone out: a failure to
  // write it is logged and never changes what the identity provider received.
  app.addHook('onResponse', async (request, reply) => {
    try {
      await recordScimRequest(deps, {
        credentialId: request.scimCredential?.id ?? null,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        scimType: request.scimType,
        subject: request.scimSubject,
        durationMs: reply.elapsedTime,
      })
    } catch (error) {
      request.log.warn(
        { error: { message: (error as Error).message } },
        'could not record the SCIM request',
      )
    }
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const scimError = toScimError(error)
    if (scimError !== null) return sendScimError(request, reply, scimError)
    request.log.error(
      { error: { type: error.name, code: error.code, message: error.message } },
      'SCIM request failed unexpectedly',
    )
    return sendScimError(request, reply, new ScimError(500, new AppError('INTERNAL').message))
  })

  app.setNotFoundHandler((request, reply) =>
    sendScimError(request, reply, new ScimError(404, 'No such SCIM endpoint.')),
  )
}
