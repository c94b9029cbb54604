import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../auth/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { ApiTokenPage, CreateApiTokenBody, CreatedApiTokenView } from './schemas.js'
import { createApiToken, listApiTokens, revokeOwnApiToken } from './service.js'

const tags = ['API tokens']

export function tokenRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '',
      {
        // Only an interactive session may mint tokens (CONTRACT.md §5.4); every attempt counts.
        config: { auth: 'session', rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'createApiToken',
          summary: 'Create a personal API token; the secret is in this response only',
          body: CreateApiTokenBody,
          response: {
            201: CreatedApiTokenView,
            409: errorResponse('LIMIT_REACHED: 100 active tokens'),
            429: errorResponse('RATE_LIMITED: 10 creations per 15 minutes'),
          },
        },
      },
      async (request, reply) => reply.code(201).send(await createApiToken(deps, callerOf(request), request.body, contextOf(request))),
    )

    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listApiTokens',
          summary: 'Your active API tokens, newest first',
          querystring: PageQuery,
          response: { 200: ApiTokenPage },
        },
      },
      async (request) => listApiTokens(deps, callerOf(request), request.query),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'revokeApiToken',
          summary: 'Revoke one of your API tokens',
          params: IdParams,
          response: { 204: NoContent, 404: errorResponse('NOT_FOUND: no active token of yours with this id') },
        },
      },
      async (request, reply) => {
        await revokeOwnApiToken(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}
