/**
 * The OpenAPI 3.1 document at /api/openapi.json, generated from the route schemas, and an
 * interactive explorer at /api/docs. Every route gets the error statuses that the shared machinery
 * can produce for it (authentication, CSRF, validation, body parsing, 500), so the document lists
 * every status a client can see without each route repeating them.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { Type, type TSchema } from '@sinclair/typebox'
import type { AuthRequirement } from './route-auth.js'
import { ErrorEnvelope } from './error-envelope.js'

export const DOCS_PREFIX = '/api/docs'

/** An error response for a route's schema: the envelope, with what the status means here. */
export function errorResponse(description: string): TSchema {
  return Type.Ref(ErrorEnvelope, { description })
}

type ResponseMap = Record<string, unknown>

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function addStandardResponses(route: RouteOptions): void {
  const auth: AuthRequirement = route.config?.auth ?? 'user'
  const methods = [route.method].flat()
  const schema = (route.schema ??= {})
  const response = (schema.response ??= {}) as ResponseMap
  const add = (status: number, description: string) => {
    if (response[status] === undefined) response[status] = errorResponse(description)
  }
  const hasInput = schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined
  if (hasInput || methods.some((m) => BODY_METHODS.has(m))) add(400, 'VALIDATION_FAILED or MALFORMED_JSON')
  if (auth !== 'public') add(401, 'UNAUTHORIZED: credentials missing, invalid, expired or revoked')
  const forbidden = [
    ...(auth !== 'public' && methods.some((m) => BODY_METHODS.has(m)) ? ['CSRF_FAILED (cookie authentication)'] : []),
    ...(auth === 'session' ? ['SESSION_REQUIRED'] : []),
    ...(auth === 'admin' ? ['FORBIDDEN'] : []),
  ]
  if (forbidden.length > 0) add(403, forbidden.join('; '))
  if (methods.some((m) => BODY_METHODS.has(m))) {
    add(413, 'PAYLOAD_TOO_LARGE: body over 64 KiB')
    add(415, 'UNSUPPORTED_MEDIA_TYPE: the body is not JSON')
  }
  if (route.config?.rateLimit !== false) add(429, 'RATE_LIMITED: request rate limit (RATE_LIMIT_GENERAL per minute)')
  add(500, 'INTERNAL')
}

export async function installOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX) || route.schema?.hide === true) return
    addStandardResponses(route)
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '1.0.0',
        description:
          'Accounts, security and administration. Errors use the envelope `Error`; see docs/API.md for decisions beyond the contract.',
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A personal API token (sb_…) or the access JWT' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token', description: 'The session cookie; unsafe methods also need X-CSRF-Token' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` },
    transform: ({ schema, url, route }) => {
      const isPublic = (route.config?.auth ?? 'user') === 'public'
      return {
        url,
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- without it the literal's `security` type does not fit SwaggerTransform's return type
        schema: { ...schema, ...(isPublic ? { security: [] } : { security: [{ bearerAuth: [] }, { cookieAuth: [] }] }) } as typeof schema,
      }
    },
  })

  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true })

  app.get(
    '/api/openapi.json',
    { schema: { hide: true }, config: { auth: 'public' } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  )
}
