/**
 * The OpenAPI 3.1 document at /api/openapi.json, generated from the route schemas, and an
 * interactive explorer at /api/docs. Every route gets the error statuses that the shared machinery
 * can produce for it (authentication, CSRF, validation, body parsing, rate limits, the database
 * being down, 500), so the document lists every status a client can see without each route
 * repeating them. Those shared answers are response components, referenced from each operation.
 *
 * The document is a contract: the test suite validates every response it receives against it
 * (test/helpers/contract.ts) and `npm run lint:openapi` lints it.
 */
import { createRequire } from 'node:module'
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import type * as SwaggerUi from '@fastify/swagger-ui'
import { Type, type TSchema } from '@sinclair/typebox'
import type { AuthRequirement } from './route-auth.js'
import { AppError } from '../errors.js'
import { ErrorEnvelope } from './error-envelope.js'

export const DOCS_PREFIX = '/api/docs'

declare module 'fastify' {
  interface FastifySchema {
    /**
     * false: the operation never touches the database, so it cannot answer 503 SERVICE_UNAVAILABLE.
     */
    database?: false
    /**
     * Documentation only: the body of a route that reads its body as raw bytes (a schema there
     * would be validated against a Buffer). The document shows it as the request body.
     */
    rawBody?: TSchema
    /**
     * true: the route takes a body of any media type (it reads the bytes itself), so it never
     * answers 415 and the document does not list one (POST /api/links/import/file).
     */
    anyMediaType?: true
  }
}

/** An error response for a route's schema: the envelope, with what the status means here. */
export function errorResponse(description: string): TSchema {
  return Type.Ref(ErrorEnvelope, { description })
}

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }

/** The answers the shared machinery gives, one component each (`#/components/responses/<name>`). */
export const SHARED_RESPONSES = {
  ValidationFailed: {
    status: 400,
    description: 'VALIDATION_FAILED (details: one entry per invalid field) or MALFORMED_JSON',
  },
  Unauthorized: {
    status: 401,
    description: 'UNAUTHORIZED: credentials missing, invalid, expired or revoked',
  },
  CsrfFailed: {
    status: 403,
    description: 'CSRF_FAILED: cookie authentication without the matching X-CSRF-Token header',
  },
  SessionRequired: {
    status: 403,
    description: 'SESSION_REQUIRED: needs an interactive session, not an API token',
  },
  SessionRequiredOrCsrfFailed: {
    status: 403,
    description:
      'SESSION_REQUIRED: needs an interactive session, not an API token; CSRF_FAILED: cookie authentication without the matching X-CSRF-Token header',
  },
  // No administrators' route is open during enrolment, so theirs name both reasons; each
  // needs an admin.* permission of an API token.
  AdminRequired: {
    status: 403,
    description:
      'FORBIDDEN: administrators only; INSUFFICIENT_SCOPE: the API token lacks the permission this operation needs (details.required names it); MFA_ENROLLMENT_REQUIRED: the two-factor policy covers you and you have no second factor yet; set one up first',
  },
  AdminRequiredOrCsrfFailed: {
    status: 403,
    description:
      'FORBIDDEN: administrators only; INSUFFICIENT_SCOPE: the API token lacks the permission this operation needs (details.required names it); CSRF_FAILED: cookie authentication without the matching X-CSRF-Token header; MFA_ENROLLMENT_REQUIRED: the two-factor policy covers you and you have no second factor yet; set one up first',
  },
  // An operation an API token may call with the right permission.
  ScopeRequired: {
    status: 403,
    description:
      'INSUFFICIENT_SCOPE: the API token lacks the permission this operation needs (details.required names it); MFA_ENROLLMENT_REQUIRED: the two-factor policy covers you and you have no second factor yet; set one up first',
  },
  ScopeRequiredOrCsrfFailed: {
    status: 403,
    description:
      'INSUFFICIENT_SCOPE: the API token lacks the permission this operation needs (details.required names it); CSRF_FAILED: cookie authentication without the matching X-CSRF-Token header; MFA_ENROLLMENT_REQUIRED: the two-factor policy covers you and you have no second factor yet; set one up first',
  },
  EnrollmentRequired: {
    status: 403,
    description:
      'MFA_ENROLLMENT_REQUIRED: the two-factor policy covers you and you have no second factor yet; set one up first',
  },
  NotFound: {
    status: 404,
    description:
      'NOT_FOUND: a path parameter that names nothing (one holding a control character, say)',
  },
  PayloadTooLarge: { status: 413, description: 'PAYLOAD_TOO_LARGE: body over 64 KiB' },
  UnsupportedMediaType: {
    status: 415,
    description: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json',
  },
  RateLimited: {
    status: 429,
    description:
      'RATE_LIMITED: request rate limit (RATE_LIMIT_GENERAL per minute); see Retry-After',
  },
  Internal: {
    status: 500,
    description: 'INTERNAL: an unexpected error (details are in the log under the request id)',
  },
  ServiceUnavailable: {
    status: 503,
    description: 'SERVICE_UNAVAILABLE: the database is not answering; try again shortly',
  },
} as const
type SharedResponseName = keyof typeof SHARED_RESPONSES

const DATABASE_DOWN = 'SERVICE_UNAVAILABLE: the database is not answering'
const CSRF_FAILED = 'CSRF_FAILED: cookie authentication without the matching X-CSRF-Token header'
const ENROLLMENT_REQUIRED = SHARED_RESPONSES.EnrollmentRequired.description

function sharedResponse(name: SharedResponseName): TSchema {
  return errorResponse(SHARED_RESPONSES[name].description)
}

type ResponseMap = Record<string, unknown>

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function forbiddenResponse(
  auth: AuthRequirement,
  unsafe: boolean,
  scopedDuringEnrollment: boolean,
): SharedResponseName | null {
  const csrf = auth !== 'public' && unsafe
  if (auth === 'session') return csrf ? 'SessionRequiredOrCsrfFailed' : 'SessionRequired'
  if (auth === 'admin') return csrf ? 'AdminRequiredOrCsrfFailed' : 'AdminRequired'
  if (scopedDuringEnrollment) return csrf ? 'ScopeRequiredOrCsrfFailed' : 'ScopeRequired'
  return csrf ? 'CsrfFailed' : null
}

/**
 * What an API token needs for an operation, by operationId (the table is the tokens
 * module's, handed down by app.ts): a permission, `session` (never a token), `public`, or undefined
 * when the table has no entry (no token may).
 */
export type TokenAccessLookup = (operationId: string | undefined) => string | undefined

const INSUFFICIENT_SCOPE =
  'INSUFFICIENT_SCOPE: the API token lacks the permission this operation needs (details.required names it)'

function isPermission(access: string | undefined): access is string {
  return access !== undefined && access !== 'session' && access !== 'public'
}

function addStandardResponses(route: RouteOptions, tokenAccess: TokenAccessLookup): void {
  const declared: AuthRequirement = route.config?.auth ?? 'user'
  const access = tokenAccess(route.schema?.operationId)
  // An operation no token may call answers a token as a session-only one does.
  const auth: AuthRequirement = declared === 'user' && !isPermission(access) ? 'session' : declared
  const methods = [route.method].flat()
  const unsafe = methods.some((m) => BODY_METHODS.has(m))
  const schema = (route.schema ??= {})
  const response = (schema.response ??= {}) as ResponseMap
  const add = (name: SharedResponseName) => {
    const status = SHARED_RESPONSES[name].status
    if (response[status] === undefined) response[status] = sharedResponse(name)
  }
  const hasInput =
    schema.body !== undefined ||
    schema.querystring !== undefined ||
    schema.params !== undefined ||
    schema.headers !== undefined
  if (hasInput || unsafe) add('ValidationFailed')
  if (auth !== 'public') add('Unauthorized')
  const forbidden = forbiddenResponse(
    auth,
    unsafe,
    isPermission(access) && route.config?.allowedDuringEnrollment !== true,
  )
  if (forbidden !== null) add(forbidden)
  // A route's own 403 (an organization role, say) does not replace the CSRF check before it.
  if (auth !== 'public' && unsafe) extend(response, 403, 'CSRF_FAILED', CSRF_FAILED)
  if (auth !== 'public' && isPermission(access)) {
    if (response[403] === undefined) response[403] = errorResponse(INSUFFICIENT_SCOPE)
    else extend(response, 403, 'INSUFFICIENT_SCOPE', INSUFFICIENT_SCOPE)
  }
  if (declared === 'admin' && !isPermission(access))
    extend(response, 403, 'SESSION_REQUIRED', SHARED_RESPONSES.SessionRequired.description)
  // A caller restricted to enrolment by the two-factor policy (route-auth.ts).
  if (auth !== 'public' && route.config?.allowedDuringEnrollment !== true) {
    add('EnrollmentRequired')
    extend(response, 403, 'MFA_ENROLLMENT_REQUIRED', ENROLLMENT_REQUIRED)
  }
  // src/plugins/http.ts answers 404 for a path parameter holding a control character, on every such
  // route.
  if (route.url.includes(':')) add('NotFound')
  if (unsafe) {
    add('PayloadTooLarge')
    if (schema.anyMediaType !== true) add('UnsupportedMediaType')
  }
  if (route.config?.rateLimit !== false) add('RateLimited')
  add('Internal')
  // Authentication reads the database, so does nearly every operation: all of them answer 503
  // while it is down, except those that declare they never touch it.
  if (schema.database !== false) {
    if (response[503] === undefined) add('ServiceUnavailable')
    else extend(response, 503, 'SERVICE_UNAVAILABLE', DATABASE_DOWN)
  }
}

/** Adds a shared reason to a route's own description of a status, unless it names it already. */
function extend(response: ResponseMap, status: number, reason: string, description: string): void {
  const own = response[status] as { description?: string } | undefined
  if (own?.description !== undefined && !own.description.includes(reason))
    response[status] = errorResponse(`${own.description}; ${description}`)
}

interface DocumentResponse {
  description?: string
  content?: Record<string, { schema?: Record<string, unknown> }>
}

interface BodySchema {
  $ref?: string
  type?: string
  required?: string[]
  minProperties?: number
}

interface DocumentOperation {
  operationId?: string
  'x-permission'?: string
  'x-session-only'?: true
  responses?: Record<string, DocumentResponse>
  requestBody?: { required?: boolean; content?: Record<string, { schema?: BodySchema }> }
}

/** The part of the generated document these transforms walk. */
interface OpenApiObject {
  paths?: Record<string, Record<string, DocumentOperation>>
  components: Record<string, unknown>
}

/**
 * Replaces each shared answer in the operations by a reference to its component. The generator
 * drops annotations next to a $ref, so a shared answer is recognised by its status and its
 * description, which no route-specific answer repeats.
 */
function referenceSharedResponses(document: OpenApiObject): OpenApiObject {
  const shared = new Map(
    Object.entries(SHARED_RESPONSES).map(([name, { status, description }]) => [
      `${status} ${description}`,
      name,
    ]),
  )
  // Only the components some operation refers to: a 403 that names INSUFFICIENT_SCOPE is
  // the operation's own, so some shared 403 answers may have no taker left.
  const used = new Set<string>()
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const name = shared.get(`${status} ${response.description}`)
        if (
          name !== undefined &&
          response.content?.['application/json']?.schema?.$ref === '#/components/schemas/Error'
        ) {
          operation.responses![status] = {
            $ref: `#/components/responses/${name}`,
          } as DocumentResponse
          used.add(name)
        }
      }
    }
  }
  markOptionalBodies(document)
  document.components.responses = Object.fromEntries(
    Object.entries(SHARED_RESPONSES)
      .filter(([name]) => used.has(name))
      .map(([name, { status, description }]) => [
        name,
        {
          description,
          ...(status === 401 && {
            headers: {
              'WWW-Authenticate': {
                description: 'Bearer realm="switchboard"',
                schema: { type: 'string' },
              },
            },
          }),
          ...(status === 429 && {
            headers: {
              'Retry-After': {
                description: 'Whole seconds until a retry can succeed',
                schema: { type: 'integer' },
              },
            },
          }),
          content: ERROR_CONTENT,
        },
      ]),
  )
  return document
}

/**
 * Each operation's access, machine-readable, from the table the authentication hook enforces:
 * `x-permission` names the permission an API token needs; `x-session-only: true` marks an
 * operation no token may call (403 SESSION_REQUIRED); a public one has neither (and no security).
 */
function declareAccess(
  document: OpenApiObject,
  tokenAccess: TokenAccessLookup,
  publicOperations: ReadonlySet<string>,
): OpenApiObject {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const id = operation.operationId
      if (id === undefined || publicOperations.has(id)) continue
      const access = tokenAccess(id)
      if (isPermission(access)) operation['x-permission'] = access
      else operation['x-session-only'] = true
    }
  }
  return document
}

/**
 * The generator marks every request body required, but a route whose body schema requires no field
 * also accepts no body at all (src/plugins/http.ts reads it as {}): such bodies are optional.
 */
function markOptionalBodies(document: OpenApiObject): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody
      const schema = body?.content?.['application/json']?.schema
      if (body === undefined || schema === undefined || schema.$ref !== undefined) continue
      if (
        schema.type === 'object' &&
        (schema.required ?? []).length === 0 &&
        schema.minProperties === undefined
      )
        body.required = false
    }
  }
}

export async function installOpenApi(
  app: FastifyInstance,
  options: { publicUrl: string; sessionCookie: string; tokenAccess: TokenAccessLookup },
): Promise<void> {
  const { tokenAccess } = options
  const publicOperations = new Set<string>()
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX) || route.schema?.hide === true) return
    addStandardResponses(route, tokenAccess)
    const id = route.schema?.operationId
    if (id !== undefined && (route.config?.auth ?? 'user') === 'public') publicOperations.add(id)
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '1.0.0',
        description:
          'Accounts, security and administration. Errors use the envelope `Error`; ' +
          "the repository's docs/API.md describes each resource's rules.",
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A personal API token (sb_…) or the access JWT. An operation's bearer scope names the permission an API token needs (`<area>:read` or `<area>:write`, write implies read); no scope on an authenticated operation means an interactive session only (403 SESSION_REQUIRED to any token).",
          },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            // `__Host-token` when PUBLIC_URL is https, `token` on http
            // (docs/API.md#access-jwt-and-sessions).
            name: options.sessionCookie,
            description:
              'The session cookie; unsafe methods also need X-CSRF-Token (copied from the csrf_token cookie, __Host-csrf_token on https)',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url, route }) => {
      const isPublic = (route.config?.auth ?? 'user') === 'public'
      const access = tokenAccess(schema?.operationId)
      const scopes = isPermission(access) ? [access] : []
      const {
        rawBody,
        database: _database,
        anyMediaType: _anyMediaType,
        ...documented
      } = schema ?? {}
      return {
        url,
        // Without it the literal's `security` type does not fit SwaggerTransform's return type.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        schema: {
          ...documented,
          ...(rawBody !== undefined && { body: rawBody }),
          // A route may state its own (GET /api/metrics: the bearer secret only when METRICS_TOKEN
          // is set). The bearer scope is the permission an API token needs (none: session only).
          security:
            documented.security ?? (isPublic ? [] : [{ bearerAuth: scopes }, { cookieAuth: [] }]),
        } as typeof schema,
      }
    },
    transformObject: (document) =>
      declareAccess(
        referenceSharedResponses(
          (document as unknown as { openapiObject: OpenApiObject }).openapiObject,
        ),
        tokenAccess,
        publicOperations,
      ) as never,
  })

  installExplorer(app)

  app.get(
    '/api/openapi.json',
    { schema: { hide: true }, config: { auth: 'public' } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  )
}

// @fastify/swagger-ui is loaded by the first visit of the explorer, not at start-up: registering
// it (with @fastify/static and its routes) costs 3–8 MiB of the idle footprint
// (docs/decisions/0002-start-up-footprint.md). Its loader is CommonJS, so createRequire keeps it
// out of the bundle.
const require = createRequire(import.meta.url)

/**
 * The interactive explorer at /api/docs: Swagger UI as @fastify/swagger-ui serves it, in a small
 * Fastify instance of its own built on the first visit; these routes hand it each request and
 * answer with what it answers (status, its CSP and content headers, body). The document it shows
 * is this application's (`app.swagger()`).
 */
function installExplorer(app: FastifyInstance): void {
  let explorer: Promise<FastifyInstance> | undefined
  const build = async (): Promise<FastifyInstance> => {
    const ui = Fastify({ logger: false })
    // The UI declares a dependency on @fastify/swagger; this stands in for it with the app's
    // document.
    await ui.register(
      fp(
        async (instance: FastifyInstance) => {
          instance.decorate('swagger', app.swagger.bind(app))
        },
        { name: '@fastify/swagger' },
      ),
    )
    const { default: swaggerUi } = require('@fastify/swagger-ui') as {
      default: typeof SwaggerUi.default
    }
    await ui.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true })
    await ui.ready()
    return ui
  }
  const PASSED_ON = [
    'content-type',
    'content-security-policy',
    'cache-control',
    'location',
    'etag',
    'last-modified',
  ]
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    explorer ??= build().catch((error: unknown) => {
      explorer = undefined
      throw error
    })
    const answer = await (
      await explorer
    ).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    })
    // Failures leave in the envelope, like every other answer of the API.
    if (answer.statusCode === 404) throw new AppError('NOT_FOUND')
    if (answer.statusCode >= 400) throw new AppError('INTERNAL')
    for (const name of PASSED_ON) {
      const value = answer.headers[name]
      if (value !== undefined) reply.header(name, value)
    }
    return reply.code(answer.statusCode).send(answer.rawPayload)
  }
  const route = { schema: { hide: true }, config: { auth: 'public' as const } }
  app.get(DOCS_PREFIX, route, serve)
  app.get(`${DOCS_PREFIX}/*`, route, serve)
}
