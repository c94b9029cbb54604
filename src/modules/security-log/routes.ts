import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { PageQuery } from '../../lib/schema-types.js'
import { callerOf } from '../../identity/hook.js'
import { SecurityEventPage } from './schemas.js'
import { listOwnSecurityEvents } from './service.js'

const tags = ['current user']

/** GET /api/users/me/security-events. */
export function securityLogRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listSecurityEvents',
          summary:
            "Your account's security events (sign-ins, factor, password, email and token changes), newest first",
          querystring: PageQuery,
          response: { 200: SecurityEventPage },
        },
      },
      async (request) => listOwnSecurityEvents(deps, callerOf(request), request.query),
    )
  }
}
