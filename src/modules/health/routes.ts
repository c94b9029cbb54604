import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { errorResponse } from '../../plugins/openapi.js'
import { checkReadiness } from './service.js'

const Status = Type.Object({ status: Type.Literal('ok') })

export function healthRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'public', rateLimit: false },
        schema: {
          tags: ['operations'],
          operationId: 'getHealth',
          summary: 'Liveness: the process answers',
          database: false,
          response: { 200: Status },
        },
      },
      async () => ({ status: 'ok' as const }),
    )

    app.get(
      '/ready',
      {
        config: { auth: 'public', rateLimit: false },
        schema: {
          tags: ['operations'],
          operationId: 'getReadiness',
          summary: 'Readiness: the database answers',
          response: {
            200: Status,
            503: errorResponse('SERVICE_UNAVAILABLE: the database does not answer'),
          },
        },
      },
      async () => {
        await checkReadiness(deps)
        return { status: 'ok' as const }
      },
    )
  }
}
