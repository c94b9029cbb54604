import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { assertAdministratorProof } from '../admin/reauth.js'
import {
  CreateScimCredentialBody,
  CreatedScimCredentialView,
  ScimCredentialList,
} from './credentials.schemas.js'
import {
  createScimCredential,
  listScimCredentials,
  revokeScimCredentialById,
} from './credentials.service.js'

const tags = ['administration']

/** /api/admin/scim/credentials — the identity providers' SCIM tokens, managed by administrators. */
export function scimCredentialRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const baseUrl = `${deps.config.publicUrl.replace(/\/$/, '')}/scim/v2`
  return async (app) => {
    app.get(
      '',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'listScimCredentials',
          summary: 'The SCIM credentials not revoked, newest first, and the SCIM base URL',
          response: { 200: ScimCredentialList },
        },
      },
      async () => ({ items: await listScimCredentials(deps), base_url: baseUrl }),
    )

    app.post(
      '',
      {
        // Every attempt counts: a credential can create, deactivate and remove accounts.
        config: { auth: 'admin', rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'createScimCredential',
          summary:
            'Create a SCIM credential for an identity provider; the secret is in this response only',
          description:
            "Needs an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on): a credential provisions accounts.",
          body: CreateScimCredentialBody,
          response: {
            201: CreatedScimCredentialView,
            400: errorResponse(
              "VALIDATION_FAILED, PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE: the administrator's own proof",
            ),
            403: errorResponse('FORBIDDEN: administrators only; SESSION_REQUIRED: an API token'),
            409: errorResponse('ALREADY_EXISTS: a credential with this name is not revoked'),
            429: errorResponse('RATE_LIMITED: 10 creations per 15 minutes'),
          },
        },
      },
      async (request, reply) => {
        const { current_password, code, ...body } = request.body
        const caller = callerOf(request)
        await assertAdministratorProof(deps, caller, { current_password, code })
        return reply.code(201).send({
          ...(await createScimCredential(deps, caller.user, body, contextOf(request))),
          base_url: baseUrl,
        })
      },
    )

    app.delete(
      '/:id',
      {
        config: { auth: 'admin' },
        schema: {
          tags,
          operationId: 'revokeScimCredential',
          summary: 'Revoke a SCIM credential; its next request is refused',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('NOT_FOUND: no SCIM credential with this id that is not revoked'),
          },
        },
      },
      async (request, reply) => {
        await revokeScimCredentialById(
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
