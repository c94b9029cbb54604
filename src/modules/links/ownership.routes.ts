/** /api/links: ownership — Recently deleted (30 days, restorable) and transfer. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { IdParams, PageQuery } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { listRecentlyDeleted, restoreDeletedLink, transferLink } from './ownership.service.js'
import { tags } from './route-responses.js'
import { TransferOfferView } from './transfer-offers.schemas.js'
import { announceOffer } from './transfer-offers.service.js'
import {
  DeletedLinkPage,
  LinkView,
  RestoreLinkBody,
  TransferLinkBody,
  TransferredLink,
} from './schemas.js'

export function linkOwnershipRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
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
            'Give a link to an organization you may share with, or offer it to a fellow member of your organizations',
          description:
            'To an organization (or to yourself) the link moves at once: 200. To a person it is offered: 202, and it moves ' +
            'when they accept (POST /api/links/transfer-offers/{id}/accept). The answer does not depend on the links the ' +
            'person has: a slug they use already is their 409 at acceptance.',
          params: IdParams,
          body: TransferLinkBody,
          response: {
            200: TransferredLink,
            202: TransferOfferView,
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
              'ALREADY_EXISTS: the organization has a link with this slug (details: slug); LIMIT_REACHED: 100 standing offers of yours',
            ),
          },
        },
      },
      async (request, reply) => {
        const outcome = await transferLink(
          deps,
          callerOf(request),
          request.params.id,
          request.body,
          contextOf(request),
        )
        if ('moved' in outcome) return outcome.moved
        return reply.code(202).send(await announceOffer(deps, outcome.offered))
      },
    )
  }
}
