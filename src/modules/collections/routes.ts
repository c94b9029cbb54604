/** /api/collections: named, ordered sets of links, shareable with teams. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import {
  CollectionList,
  CollectionView,
  CreateCollectionBody,
  SetCollectionLinksBody,
  UpdateCollectionBody,
} from './schemas.js'
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  setCollectionLinks,
  updateCollection,
} from './service.js'

const tags = ['Collections']
const NO_SUCH = errorResponse('NOT_FOUND: no such collection, or you do not see it')
const NOT_YOURS = errorResponse('FORBIDDEN: you see the collection but may not change it')

export function collectionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listCollections',
          summary: "The collections you see: yours, your organizations', your teams'",
          response: { 200: CollectionList },
        },
      },
      async (request) => listCollections(deps, callerOf(request)),
    )

    app.post(
      '',
      {
        schema: {
          tags,
          operationId: 'createCollection',
          summary: 'Create a collection of yours, or of an organization you belong to',
          body: CreateCollectionBody,
          response: {
            201: CollectionView,
            404: errorResponse('NOT_FOUND: no such organization or team, or you are not a member'),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createCollection(deps, callerOf(request), request.body, contextOf(request))),
    )

    app.get(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'getCollection',
          summary: 'One collection you see',
          params: IdParams,
          response: { 200: CollectionView, 404: NO_SUCH },
        },
      },
      async (request) => getCollection(deps, callerOf(request), request.params.id),
    )

    app.patch(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'updateCollection',
          summary: "Rename a collection, change its description or the teams it's shared with",
          params: IdParams,
          body: UpdateCollectionBody,
          response: {
            200: CollectionView,
            403: NOT_YOURS,
            404: errorResponse('NOT_FOUND: no such collection, or a team is not yours'),
          },
        },
      },
      async (request) =>
        updateCollection(
          deps,
          callerOf(request),
          request.params.id,
          request.body,
          contextOf(request),
        ),
    )

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'deleteCollection',
          summary: 'Delete a collection (its links stay)',
          params: IdParams,
          response: { 204: NoContent, 403: NOT_YOURS, 404: NO_SUCH },
        },
      },
      async (request, reply) => {
        await deleteCollection(deps, callerOf(request), request.params.id)
        return reply.code(204).send(null)
      },
    )

    app.put(
      '/:id/links',
      {
        schema: {
          tags,
          operationId: 'setCollectionLinks',
          summary: "Set a collection's links, in this order",
          params: IdParams,
          body: SetCollectionLinksBody,
          response: {
            200: CollectionView,
            403: NOT_YOURS,
            404: errorResponse(
              'NOT_FOUND: no such collection, or a link it may not hold (details: link_ids)',
            ),
          },
        },
      },
      async (request) =>
        setCollectionLinks(deps, callerOf(request), request.params.id, request.body),
    )
  }
}
