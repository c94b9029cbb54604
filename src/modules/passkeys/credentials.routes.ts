/**
 * /api/auth/passkeys — the caller's passkeys: list, register (registration.routes.ts), rename,
 * delete. Listing stays open to an account that must still enrol a second factor under the
 * two-factor policy (docs/API.md#passkeys).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { PROOF_BUDGET, proofOf, REAUTH, SECOND_FACTOR, tags } from './route-responses.js'
import { passkeyRegistrationRoutes } from './registration.routes.js'
import { DeleteBody, PasskeyPage, PasskeyView, RenameBody } from './schemas.js'
import { deleteOwnPasskey, listOwnPasskeys, renameOwnPasskey } from './service.js'

export function passkeyCredentialRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '',
      {
        config: { allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'listPasskeys',
          summary: "The caller's passkeys, newest first",
          response: { 200: PasskeyPage },
        },
      },
      async (request) => listOwnPasskeys(deps, callerOf(request)),
    )

    // Registered here, between listing and changing one, as the API document lists them.
    await app.register(passkeyRegistrationRoutes(deps))

    app.patch(
      '/:id',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'renamePasskey',
          summary:
            'Rename a passkey (no proof needed: a name changes nothing about who can sign in)',
          params: IdParams,
          body: RenameBody,
          response: {
            200: PasskeyView,
            400: errorResponse('VALIDATION_FAILED'),
            404: errorResponse('NOT_FOUND: no such passkey of yours'),
          },
        },
      },
      async (request) =>
        renameOwnPasskey(
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
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'deletePasskey',
          summary:
            'Delete a passkey (with the password, if the account has one); the last second factor also ends other sessions',
          description:
            'The last second factor (no authenticator app, no other passkey) also needs that factor now, as disabling TOTP does: `passkey` (an answer to POST /api/auth/passkeys/proof/options) or `code`; else 400 SECOND_FACTOR_REQUIRED.',
          params: IdParams,
          body: DeleteBody,
          response: {
            204: NoContent,
            400: errorResponse(`VALIDATION_FAILED, ${REAUTH}, ${SECOND_FACTOR}`),
            404: errorResponse('NOT_FOUND: no such passkey of yours'),
            409: errorResponse(
              'PASSKEY_CHALLENGE_EXPIRED: the proof challenge is unknown, used or expired',
            ),
            429: PROOF_BUDGET,
          },
        },
      },
      async (request, reply) => {
        const proof = proofOf(request.body ?? {})
        await deleteOwnPasskey(
          deps,
          callerOf(request),
          request.params.id,
          proof,
          contextOf(request),
        )
        return reply.code(204).send(null)
      },
    )
  }
}
