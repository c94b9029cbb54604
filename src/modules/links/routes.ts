import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import {
  BulkLinksBody,
  BulkLinksResult,
  FetchTitleBody,
  FetchedTitle,
  MAX_BULK_LINKS,
  CreateLinkBody,
  DeletedLinkPage,
  GoPreview,
  GoPreviewQuery,
  LinkClicks,
  LinkPage,
  LinkQuery,
  LinkView,
  RestoreLinkBody,
  SlugAvailability,
  SlugAvailabilityQuery,
  TransferLinkBody,
  TransferredLink,
  UpdateLinkBody,
} from './schemas.js'
import { previewGoLink } from './preview.js'
import {
  deleteLinkKeepingCopy,
  listRecentlyDeleted,
  restoreDeletedLink,
  transferLink,
} from './ownership.service.js'
import { bookmarkRoutes } from './bookmarks/routes.js'
import { bulkLinks } from './bulk.js'
import { fetchLinkTitle, TITLE_READ_BYTES, TITLE_TIMEOUT_MS } from './title.js'
import {
  checkSlugAvailability,
  createLink,
  getLink,
  getLinkClicks,
  listLinks,
  updateLink,
} from './service.js'

const tags = ['links']
const NO_SUCH_LINK = errorResponse('NOT_FOUND: no such link, or not one you can see')
const NOT_YOURS = errorResponse(
  "FORBIDDEN: a shared link is changed only by its creator and the organization's owners and admins",
)
const SLUG_TAKEN = errorResponse(
  'ALREADY_EXISTS: another link of the same owner (you, or the organization) has this slug (details: slug)',
)

/**
 * /api/links — personal links and links shared with the caller's organizations
 * (docs/API.md#links-and-go-links).
 */
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
          response: {
            201: LinkView,
            404: errorResponse('NOT_FOUND: no such organization, or you are not a member'),
            409: SLUG_TAKEN,
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createLink(deps, callerOf(request), request.body)),
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

    app.post(
      '/fetch-title',
      {
        schema: {
          tags,
          operationId: 'fetchLinkTitle',
          summary:
            "Fetch the page at a URL and return its title (for the link dialog's suggestion); nothing is stored",
          description:
            `Through the instance's outbound rules (public addresses only unless OUTBOUND_ALLOW_PRIVATE_NETWORKS; every redirect hop checked, at most 3), ` +
            `within ${TITLE_TIMEOUT_MS / 1000} seconds, reading at most ${TITLE_READ_BYTES / 1024} KiB of an HTML answer.`,
          body: FetchTitleBody,
          response: {
            200: FetchedTitle,
            400: errorResponse(
              'VALIDATION_FAILED: not an http(s) URL, a template, or a destination the outbound rules refuse (details: url)',
            ),
            502: errorResponse(
              'UPSTREAM_FAILED: the page could not be reached, answered an error, or took too long',
            ),
          },
        },
      },
      async (request) => fetchLinkTitle(deps, request.body),
    )

    app.get(
      '/go-preview',
      {
        schema: {
          tags,
          operationId: 'previewGoLink',
          summary:
            'Where go/<slug>/<path>?<query> would lead for a destination as typed (URL or template)',
          querystring: GoPreviewQuery,
          response: { 200: GoPreview },
        },
      },
      async (request) => previewGoLink(request.query),
    )
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

    // Ownership — Recently deleted (30 days, restorable) and transfer.
    app.get(
      '/deleted',
      {
        schema: {
          tags,
          operationId: 'listDeletedLinks',
          summary: 'Links deleted in the last 30 days that you may restore, newest first',
          querystring: PageQuery,
          response: { 200: DeletedLinkPage },
        },
      },
      async (request) => listRecentlyDeleted(deps, callerOf(request), request.query),
    )
    app.post(
      '/deleted/:id/restore',
      {
        schema: {
          tags,
          operationId: 'restoreLink',
          summary: 'Restore a link deleted in the last 30 days, with its tags and click counts',
          params: IdParams,
          body: RestoreLinkBody,
          response: {
            200: LinkView,
            404: errorResponse(
              'NOT_FOUND: no such deleted link, older than 30 days, or not one you may restore',
            ),
            409: errorResponse(
              'ALREADY_EXISTS: another link of the same owner has its slug now; send another slug or null (details: slug)',
            ),
          },
        },
      },
      async (request) =>
        restoreDeletedLink(
          deps,
          callerOf(request),
          request.params.id,
          request.body,
          contextOf(request),
        ),
    )
    app.post(
      '/:id/transfer',
      {
        schema: {
          tags,
          operationId: 'transferLink',
          summary:
            'Give a link to a fellow member of your organizations, or to an organization you may share with',
          params: IdParams,
          body: TransferLinkBody,
          response: {
            200: TransferredLink,
            400: errorResponse(
              'VALIDATION_FAILED: neither or both of user_id and organization_id (details: user_id)',
            ),
            403: errorResponse(
              "FORBIDDEN: only the link's owner (you, or the organization's owners and admins) may transfer it",
            ),
            404: errorResponse(
              'NOT_FOUND: no such link, person (details: user_id) or organization',
            ),
            409: errorResponse(
              'ALREADY_EXISTS: the new owner has a link with this slug (details: slug)',
            ),
          },
        },
      },
      async (request) =>
        transferLink(deps, callerOf(request), request.params.id, request.body, contextOf(request)),
    )
  }
}
