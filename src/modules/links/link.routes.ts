/** /api/links/{id}: one link you can see — read, its clicks, change, delete. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { deleteLinkKeepingCopy } from './ownership.service.js'
import { NO_SUCH_LINK, NOT_YOURS, SLUG_TAKEN, tags } from './route-responses.js'
import { LinkClicks, LinkView, UpdateLinkBody } from './schemas.js'
import { getLink, getLinkClicks, pinLink, unpinLink, updateLink } from './service.js'

export function singleLinkRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'getLink',
          summary: 'One link you can see',
          params: IdParams,
          response: { 200: LinkView, 404: NO_SUCH_LINK },
        },
      },
      async (request) => getLink(deps, callerOf(request), request.params.id),
    )

    app.get(
      '/:id/clicks',
      {
        schema: {
          tags,
          operationId: 'getLinkClicks',
          summary:
            'Clicks on one link you can see, per UTC day over the last 90 days (redirects through /go/{slug})',
          params: IdParams,
          response: { 200: LinkClicks, 404: NO_SUCH_LINK },
        },
      },
      async (request) => getLinkClicks(deps, callerOf(request), request.params.id),
    )

    app.patch(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'updateLink',
          summary: 'Change a link, or move it between you and your organizations',
          params: IdParams,
          body: UpdateLinkBody,
          response: {
            200: LinkView,
            403: NOT_YOURS,
            404: errorResponse(
              'NOT_FOUND: no such link, or the target organization or a team is not yours',
            ),
            409: SLUG_TAKEN,
          },
        },
      },
      async (request) =>
        updateLink(deps, callerOf(request), request.params.id, request.body, contextOf(request)),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'deleteLink',
          summary: 'Delete a link (it stays 30 days in Recently deleted, restorable)',
          params: IdParams,
          response: { 204: NoContent, 403: NOT_YOURS, 404: NO_SUCH_LINK },
        },
      },
      async (request, reply) => {
        await deleteLinkKeepingCopy(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )

    app.put(
      '/:id/pin',
      {
        schema: {
          tags,
          operationId: 'pinLink',
          summary: 'Pin a link you can see, for you alone (pinned links come first)',
          params: IdParams,
          response: { 204: NoContent, 404: NO_SUCH_LINK },
        },
      },
      async (request, reply) => {
        await pinLink(deps, callerOf(request), request.params.id)
        return reply.code(204).send(null)
      },
    )

    app.delete(
      '/:id/pin',
      {
        schema: {
          tags,
          operationId: 'unpinLink',
          summary: 'Unpin a link (unpinning one not pinned changes nothing)',
          params: IdParams,
          response: { 204: NoContent, 404: NO_SUCH_LINK },
        },
      },
      async (request, reply) => {
        await unpinLink(deps, callerOf(request), request.params.id)
        return reply.code(204).send(null)
      },
    )
  }
}
