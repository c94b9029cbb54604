/** GET /api/links/duplicates: the links you can see that already point at a URL. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf } from '../../identity/hook.js'
import { tags } from './route-responses.js'
import { DuplicateList, DuplicateQuery } from './duplicates.schemas.js'
import { findDuplicates } from './duplicates.js'

export function linkDuplicateRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/duplicates',
      {
        schema: {
          tags,
          operationId: 'findDuplicateLinks',
          summary: 'The links you can see whose URL is this one (ignoring case, utm_*, #…)',
          querystring: DuplicateQuery,
          response: { 200: DuplicateList },
        },
      },
      async (request) => findDuplicates(deps, callerOf(request), request.query.url),
    )
  }
}
