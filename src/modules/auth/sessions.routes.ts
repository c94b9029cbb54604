import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { SessionPage } from './schemas.js'
import { listSessions, revokeOwnSession } from './service.js'

const tags = ['sessions']

export function sessionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listSessions',
          summary: "The current user's live sessions, newest first",
          querystring: PageQuery,
          response: { 200: SessionPage },
        },
      },
      async (request) => listSessions(deps, callerOf(request), request.query),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'revokeSession',
          summary: 'Revoke one of your sessions (sign it out)',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: no live session of yours with this id'),
          },
        },
      },
      async (request, reply) => {
        await revokeOwnSession(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}
