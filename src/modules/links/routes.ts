import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { callerOf } from '../auth/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { CreateLinkBody, LinkClicks, LinkPage, LinkQuery, LinkView, SlugAvailability, SlugAvailabilityQuery, UpdateLinkBody } from './schemas.js'
import { bookmarkRoutes } from './bookmarks/routes.js'
import { checkSlugAvailability, createLink, deleteLink, getLink, getLinkClicks, listLinks, updateLink } from './service.js'

const tags = ['links']
const NO_SUCH_LINK = errorResponse('NOT_FOUND: no such link, or not one you can see')
const NOT_YOURS = errorResponse("FORBIDDEN: a shared link is changed only by its creator and the organization's owners and admins")
const SLUG_TAKEN = errorResponse('ALREADY_EXISTS: another link of the same owner (you, or the organization) has this slug (details: slug)')

/** /api/links — personal links and links shared with the caller's organizations (CONTRACT.md §10). */
export function linkRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(bookmarkRoutes(deps))
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listLinks',
          summary: "The links you can see, newest first: yours and your organizations'",
          querystring: LinkQuery,
          response: { 200: LinkPage },
        },
      },
      async (request) => listLinks(deps, callerOf(request), request.query),
    )

    app.post(
      '',
      {
        schema: {
          tags,
          operationId: 'createLink',
          summary: 'Create a personal link, or one shared with an organization you belong to',
          body: CreateLinkBody,
          response: { 201: LinkView, 404: errorResponse('NOT_FOUND: no such organization, or you are not a member'), 409: SLUG_TAKEN },
        },
      },
      async (request, reply) => reply.code(201).send(await createLink(deps, callerOf(request), request.body)),
    )

    app.get(
      '/slug-availability',
      {
        schema: {
          tags,
          operationId: 'checkLinkSlug',
          summary: 'Whether a new link of yours (or of one of your organizations) may take this slug',
          querystring: SlugAvailabilityQuery,
          response: { 200: SlugAvailability, 404: errorResponse('NOT_FOUND: no such organization, or you are not a member') },
        },
      },
      async (request) => checkSlugAvailability(deps, callerOf(request), request.query),
    )
    app.get(
      '/:id',
      { schema: { tags, operationId: 'getLink', summary: 'One link you can see', params: IdParams, response: { 200: LinkView, 404: NO_SUCH_LINK } } },
      async (request) => getLink(deps, callerOf(request), request.params.id),
    )
    app.get(
      '/:id/clicks',
      {
        schema: {
          tags,
          operationId: 'getLinkClicks',
          summary: 'Clicks on one link you can see, per UTC day over the last 90 days (redirects through /go/{slug})',
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
            404: errorResponse('NOT_FOUND: no such link, or the target organization is not yours'),
            409: SLUG_TAKEN,
          },
        },
      },
      async (request) => updateLink(deps, callerOf(request), request.params.id, request.body),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'deleteLink',
          summary: 'Delete a link',
          params: IdParams,
          response: { 204: NoContent, 403: NOT_YOURS, 404: NO_SUCH_LINK },
        },
      },
      async (request, reply) => {
        await deleteLink(deps, callerOf(request), request.params.id)
        return reply.code(204).send(null)
      },
    )
  }
}
