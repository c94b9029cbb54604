/**
 * /api/oidc-providers (docs/API.md#identity-providers), administrators only
 * (docs/API.md#who-may-do-what).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent, PageQuery } from '../../lib/schema-types.js'
import { assertAdministratorProof } from '../admin/reauth.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import {
  CheckOidcProviderBody,
  CreateOidcProviderBody,
  OidcProviderCheckView,
  OidcProviderPage,
  OidcProviderView,
  UpdateOidcProviderBody,
} from './providers.schemas.js'
import {
  assertAcceptable,
  checkOidcProvider,
  createOidcProvider,
  deleteOidcProvider,
  getOidcProvider,
  listOidcProviders,
  updateOidcProvider,
  changesTrust,
} from './providers.service.js'

const admin = { auth: 'admin' } as const
const ADMIN_PROOF =
  "Needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on)"
const sessionOnly = errorResponse(
  'FORBIDDEN: administrators only; SESSION_REQUIRED: an API token, for a change that needs the proof',
)
const tags = ['identity providers (OIDC)']
const notFound = errorResponse('NOT_FOUND: no identity provider with this id')
const invalid = errorResponse(
  'VALIDATION_FAILED, also for a reserved provider_key or an issuer_url that is not https',
)
const keyTaken = errorResponse(
  "ALREADY_EXISTS: the provider_key is taken (details: 'provider_key')",
)

export function oidcProviderRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'listOidcProviders',
          summary: 'The identity providers, by provider_key',
          querystring: PageQuery,
          response: { 200: OidcProviderPage },
        },
      },
      async (request) => listOidcProviders(deps, request.query),
    )

    app.post(
      '',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'createOidcProvider',
          summary:
            'Add an identity provider (client_secret is write-only; null for a public client)',
          description: `${ADMIN_PROOF}: a provider can sign people in.`,
          body: CreateOidcProviderBody,
          response: { 201: OidcProviderView, 400: invalid, 403: sessionOnly, 409: keyTaken },
        },
      },
      async (request, reply) => {
        const { current_password, code, ...body } = request.body
        const caller = callerOf(request)
        assertAcceptable(deps, body)
        await assertAdministratorProof(deps, caller, { current_password, code })
        const provider = await createOidcProvider(deps, caller.user, body, contextOf(request))
        return reply.code(201).send(provider)
      },
    )

    app.get(
      '/:id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'getOidcProvider',
          summary: 'One identity provider',
          params: IdParams,
          response: { 200: OidcProviderView, 404: notFound },
        },
      },
      async (request) => getOidcProvider(deps, request.params.id),
    )

    const update = (method: 'PATCH' | 'PUT') => ({
      config: admin,
      schema: {
        tags,
        operationId: method === 'PATCH' ? 'updateOidcProvider' : 'updateOidcProviderByPut',
        summary:
          'Change an identity provider (partial); client_secret omitted: kept, null: cleared',
        description: `A change of issuer_url, trust_email or trusts_mfa_amr: ${ADMIN_PROOF}.`,
        params: IdParams,
        body: UpdateOidcProviderBody,
        response: {
          200: OidcProviderView,
          400: invalid,
          403: sessionOnly,
          404: notFound,
          409: keyTaken,
        },
      },
    })
    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: '/:id',
        ...update(method),
        handler: async (request) => {
          const { current_password, code, ...body } = request.body
          const caller = callerOf(request)
          assertAcceptable(deps, body)
          if (await changesTrust(deps, request.params.id, body))
            await assertAdministratorProof(deps, caller, { current_password, code })
          return updateOidcProvider(deps, caller.user, request.params.id, body, contextOf(request))
        },
      })
    }

    app.post(
      '/check',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'checkOidcProvider',
          summary:
            "Before saving: the callback URL for a provider_key, and the issuer's discovery document fetched and checked",
          description:
            'Nothing is stored. The discovery document is fetched through the outbound rules (timeout, size cap) and must name this issuer and an authorization and token endpoint; ' +
            'a failure is an answer (issuer.ok false, with problem and detail), not an error.',
          body: CheckOidcProviderBody,
          response: { 200: OidcProviderCheckView, 400: invalid },
        },
      },
      async (request) => checkOidcProvider(deps, request.body),
    )

    app.delete(
      '/:id',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'deleteOidcProvider',
          summary: 'Delete an identity provider; its users keep their accounts, unlinked from it',
          params: IdParams,
          response: { 204: NoContent, 404: notFound },
        },
      },
      async (request, reply) => {
        await deleteOidcProvider(
          deps,
          callerOf(request).user,
          request.params.id,
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )
  }
}
