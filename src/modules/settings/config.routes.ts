/** /api/config: what the signed-in user's client needs to know about the instance's features. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf } from '../../identity/hook.js'
import { getAiSuggestionFlags } from './ai.service.js'
import { AiSuggestionFlags } from './schemas.js'

export function configRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/ai-suggestions',
      {
        schema: {
          tags: ['configuration'],
          operationId: 'getAiSuggestionsConfig',
          summary: 'Whether AI suggestions are available on this instance and enabled for you',
          response: { 200: AiSuggestionFlags },
        },
      },
      async (request) => getAiSuggestionFlags(deps, callerOf(request).user),
    )
  }
}
