/** /api/links: the collection — list, create, a slug's availability, one action on several. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { bulkLinks } from './bulk.js'
import { NOT_YOURS, SLUG_TAKEN, tags } from './route-responses.js'
import {
  BulkLinksBody,
  BulkLinksResult,
  CreateLinkBody,
  LinkCount,
  LinkFilterQuery,
  LinkPage,
  LinkQuery,
  LinkView,
  MAX_BULK_LINKS,
  SlugAvailability,
  SlugAvailabilityQuery,
} from './schemas.js'
import { checkSlugAvailability, countLinks, createLink, listLinks } from './service.js'

export function linkCollectionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
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

    app.get(
      '/count',
      {
        schema: {
          tags,
          operationId: 'countLinks',
          summary: 'How many links the list has with these filters (one count, not a page)',
          querystring: LinkFilterQuery,
          response: { 200: LinkCount },
        },
      },
      async (request) => countLinks(deps, callerOf(request), request.query),
    )

    app.post(
      '',
      {
        schema: {
          tags,
          operationId: 'createLink',
          summary: 'Create a personal link, or one shared with an organization you belong to',
          body: CreateLinkBody,
          response: {
            201: LinkView,
            404: errorResponse('NOT_FOUND: no such organization or team, or you are not a member'),
            409: SLUG_TAKEN,
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createLink(deps, callerOf(request), request.body, contextOf(request))),
    )

    app.get(
      '/slug-availability',
      {
        schema: {
          tags,
          operationId: 'checkLinkSlug',
          summary:
            'Whether a new link of yours (or of one of your organizations) may take this slug',
          querystring: SlugAvailabilityQuery,
          response: {
            200: SlugAvailability,
            404: errorResponse('NOT_FOUND: no such organization, or you are not a member'),
          },
        },
      },
      async (request) => checkSlugAvailability(deps, callerOf(request), request.query),
    )

    app.post(
      '/bulk',
      {
        schema: {
          tags,
          operationId: 'bulkLinks',
          summary:
            'One action on several links: add or remove one of your tags, share with an organization, or delete',
          description:
            `Up to ${MAX_BULK_LINKS} links, all or nothing in one transaction: one link you cannot see is 404, one you may not change ` +
            '(for `share` and `delete`) is 403, and then nothing changes. Recorded in the audit log as `links.bulk_<action>`.',
          body: BulkLinksBody,
          response: {
            200: BulkLinksResult,
            400: errorResponse(
              'VALIDATION_FAILED: tag_id or organization_id missing for the action, or tag_id not one of your tags',
            ),
            403: NOT_YOURS,
            404: errorResponse(
              'NOT_FOUND: a link you cannot see, or the target organization is not yours',
            ),
            409: SLUG_TAKEN,
          },
        },
      },
      async (request) => bulkLinks(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
