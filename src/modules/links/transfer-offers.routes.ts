/** /api/links/transfer-offers: links offered to a person, answered by them or withdrawn. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { tags } from './route-responses.js'
import { TransferredLink } from './schemas.js'
import { TransferOfferLists } from './transfer-offers.schemas.js'
import {
  acceptTransferOffer,
  endTransferOffer,
  listTransferOffers,
} from './transfer-offers.service.js'

const NO_OFFER = errorResponse(
  'NOT_FOUND: no such standing offer to you (or from you, to withdraw it), or it has lapsed',
)

export function transferOfferRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/transfer-offers',
      {
        schema: {
          tags,
          operationId: 'listLinkTransferOffers',
          summary: 'Links offered to you, and the offers you made that are still standing',
          response: { 200: TransferOfferLists },
        },
      },
      async (request) => listTransferOffers(deps, callerOf(request)),
    )

    app.post(
      '/transfer-offers/:id/accept',
      {
        schema: {
          tags,
          operationId: 'acceptLinkTransferOffer',
          summary: 'Accept a link offered to you: it becomes your personal link',
          params: IdParams,
          response: {
            200: TransferredLink,
            404: NO_OFFER,
            409: errorResponse(
              'TRANSFER_SLUG_TAKEN: one of your links has this slug; the offer stands (details: slug)',
            ),
          },
        },
      },
      async (request) =>
        acceptTransferOffer(deps, callerOf(request), request.params.id, contextOf(request)),
    )

    app.post(
      '/transfer-offers/:id/decline',
      {
        schema: {
          tags,
          operationId: 'declineLinkTransferOffer',
          summary: 'Decline a link offered to you: it stays with its owner',
          params: IdParams,
          response: { 204: NoContent, 404: NO_OFFER },
        },
      },
      async (request, reply) => {
        await endTransferOffer(
          deps,
          callerOf(request),
          request.params.id,
          'decline',
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )

    app.post(
      '/transfer-offers/:id/cancel',
      {
        schema: {
          tags,
          operationId: 'cancelLinkTransferOffer',
          summary: 'Withdraw an offer of a link you made',
          params: IdParams,
          response: { 204: NoContent, 404: NO_OFFER },
        },
      },
      async (request, reply) => {
        await endTransferOffer(
          deps,
          callerOf(request),
          request.params.id,
          'cancel',
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )
  }
}
