/** GET/PUT /api/admin/settings/go-links: how slugs match — a static route, preferred to `/:key`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { GoLinkSettingsView, UpdateGoLinkSettingsBody } from './schemas.js'
import { getGoLinkSettings, updateGoLinkSettings } from './slug-matching.js'

const tags = ['settings: go-links']

export function goLinkSettingsRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/go-links',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'getGoLinkSettings',
          summary: 'How go-link slugs match across the instance',
          response: { 200: GoLinkSettingsView },
        },
      },
      async () => getGoLinkSettings(deps),
    )
    app.put(
      '/go-links',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'updateGoLinkSettings',
          summary:
            'Match slugs also ignoring "-" and "_" (every link is re-keyed), or ignoring case only',
          body: UpdateGoLinkSettingsBody,
          response: {
            200: GoLinkSettingsView,
            403: errorResponse('FORBIDDEN: administrators only'),
            409: errorResponse(
              'ALREADY_EXISTS: some owner has slugs that would collide once folded (details name them)',
            ),
          },
        },
      },
      async (request) =>
        updateGoLinkSettings(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
