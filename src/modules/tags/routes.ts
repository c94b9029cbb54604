import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { callerOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { CreateTagBody, TagListQuery, TagPage, TagView, UpdateTagBody } from './schemas.js'
import { createTag, deleteTag, getTag, listTags, updateTag } from './service.js'

const tags = ['tags']
const NO_SUCH_TAG = errorResponse('NOT_FOUND: no such tag of yours')
const NAME_TAKEN = errorResponse(
  'ALREADY_EXISTS: you have a tag with this name, ignoring case (details: name)',
)

/** /api/tags — the caller's own tags (docs/API.md#tags). */
export function tagRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        schema: {
          tags,
          operationId: 'listTags',
          summary: 'Your tags, by name; with q, those whose name contains it; with ids, only those',
          querystring: TagListQuery,
          response: { 200: TagPage },
        },
      },
      async (request) => listTags(deps, callerOf(request), request.query),
    )

    app.post(
      '',
      {
        schema: {
          tags,
          operationId: 'createTag',
          summary: 'Create a tag',
          body: CreateTagBody,
          response: { 201: TagView, 409: NAME_TAKEN },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createTag(deps, callerOf(request), request.body)),
    )

    app.get(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'getTag',
          summary: 'One of your tags',
          params: IdParams,
          response: { 200: TagView, 404: NO_SUCH_TAG },
        },
      },
      async (request) => getTag(deps, callerOf(request), request.params.id),
    )

    // PUT takes the same partial body as PATCH (docs/API.md#conventions: the seed names PUT for
    // tags).
    for (const method of ['PUT', 'PATCH'] as const) {
      app.route({
        method,
        url: '/:id',
        schema: {
          tags,
          operationId: method === 'PATCH' ? 'updateTag' : 'updateTagByPut',
          summary: 'Rename a tag or change its colour (null removes it)',
          params: IdParams,
          body: UpdateTagBody,
          response: { 200: TagView, 404: NO_SUCH_TAG, 409: NAME_TAKEN },
        },
        handler: async (request) =>
          updateTag(deps, callerOf(request), request.params.id, request.body),
      })
    }

    app.delete(
      '/:id',
      {
        schema: {
          tags,
          operationId: 'deleteTag',
          summary: 'Delete a tag (the links keep existing without it)',
          params: IdParams,
          response: { 204: NoContent, 404: NO_SUCH_TAG },
        },
      },
      async (request, reply) => {
        await deleteTag(deps, callerOf(request), request.params.id)
        return reply.code(204).send(null)
      },
    )
  }
}
