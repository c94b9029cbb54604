import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { PreferencePage, PreferenceView, SetPreferenceBody, SlugParams } from './schemas.js'
import { deleteGoPreference, listGoPreferences, setGoPreference } from './service.js'

const tags = ['go-links']

/** /api/go/preferences — which link /go/{slug} opens for you when several share the slug. */
export function goPreferenceRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listGoPreferences',
          summary: 'Your go-link preferences, by slug',
          querystring: PageQuery,
          response: { 200: PreferencePage },
        },
      },
      async (request) => listGoPreferences(deps, callerOf(request), request.query),
    )

    app.put(
      '/:slug',
      {
        schema: {
          tags,
          operationId: 'setGoPreference',
          summary: 'Choose the link /go/{slug} opens for you',
          params: SlugParams,
          body: SetPreferenceBody,
          response: {
            200: PreferenceView,
            400: errorResponse(
              'VALIDATION_FAILED: a malformed slug, or a link without this slug or that does not forward (details: link_id)',
            ),
            404: errorResponse('NOT_FOUND: no such link, or not one you can see'),
          },
        },
      },
      async (request) =>
        setGoPreference(deps, callerOf(request), request.params.slug, request.body.link_id),
    )

    app.delete(
      '/:slug',
      {
        schema: {
          tags,
          operationId: 'deleteGoPreference',
          summary: 'Forget your choice for /go/{slug}',
          params: SlugParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: you have no preference for this slug'),
          },
        },
      },
      async (request, reply) => {
        await deleteGoPreference(deps, callerOf(request), request.params.slug)
        return reply.code(204).send(null)
      },
    )
  }
}
