import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import {
  ApiTokenPage,
  ApiTokenPolicyView,
  ApiTokenSettingsView,
  CreateApiTokenBody,
  CreatedApiTokenView,
  UpdateApiTokenSettingsBody,
} from './schemas.js'
import { createApiToken, listApiTokens, revokeOwnApiToken } from './service.js'
import { getApiTokenPolicy, getApiTokenSettings, updateApiTokenSettings } from './policy.js'

const tags = ['API tokens']

// Every operation here manages account security: an interactive session only, as the
// permission table (permissions.ts) says too.
export function tokenRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '',
      {
        // Every attempt counts (docs/API.md#what-an-api-token-may-not-do).
        config: { auth: 'session', rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'createApiToken',
          summary:
            'Create a personal API token with its permissions, organization boundary and expiry; the secret is in this response only',
          body: CreateApiTokenBody,
          response: {
            201: CreatedApiTokenView,
            400: errorResponse(
              "VALIDATION_FAILED: an expiry past the instance's maximum lifetime, or a boundary without its organizations",
            ),
            403: errorResponse('FORBIDDEN: admin.* permissions are for administrators only'),
            404: errorResponse(
              'NOT_FOUND: an organization of the boundary that is not one of yours',
            ),
            409: errorResponse('LIMIT_REACHED: 100 active tokens'),
            429: errorResponse('RATE_LIMITED: 10 creations per 15 minutes'),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createApiToken(deps, callerOf(request), request.body, contextOf(request))),
    )

    app.get(
      '',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'listApiTokens',
          summary:
            'Your active API tokens, newest first, with their permissions, boundary, expiry and last use',
          querystring: PageQuery,
          response: { 200: ApiTokenPage },
        },
      },
      async (request) => listApiTokens(deps, callerOf(request), request.query),
    )

    app.get(
      '/policy',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'getApiTokenPolicy',
          summary:
            "The instance's token lifetimes (default and maximum) and whether legacy tokens are refused",
          response: { 200: ApiTokenPolicyView },
        },
      },
      async () => getApiTokenPolicy(deps),
    )

    app.delete(
      '/:id',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'revokeApiToken',
          summary: 'Revoke one of your API tokens',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: no active token of yours with this id'),
          },
        },
      },
      async (request, reply) => {
        await revokeOwnApiToken(deps, callerOf(request), request.params.id, contextOf(request))
        return reply.code(204).send(null)
      },
    )
  }
}

/** GET/PUT /api/admin/settings/api-tokens: a static route, preferred to the generic `/:key`. */
export function apiTokenSettingsRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const settingsTags = ['settings: API tokens']
  return async (app) => {
    app.get(
      '/api-tokens',
      {
        config: { auth: 'admin' },
        schema: {
          tags: settingsTags,
          operationId: 'getApiTokenSettings',
          summary:
            'The maximum lifetime of new API tokens and the date from which legacy tokens are refused',
          response: { 200: ApiTokenSettingsView },
        },
      },
      async () => getApiTokenSettings(deps),
    )

    app.put(
      '/api-tokens',
      {
        config: { auth: 'admin' },
        schema: {
          tags: settingsTags,
          operationId: 'updateApiTokenSettings',
          summary:
            'Lower the maximum lifetime of new API tokens (at most 365 days); refuse legacy tokens from a date on (null: accept them)',
          body: UpdateApiTokenSettingsBody,
          response: { 200: ApiTokenSettingsView },
        },
      },
      async (request) =>
        updateApiTokenSettings(deps, callerOf(request), request.body, contextOf(request)),
    )
  }
}
