/**
 * /api/auth/passkeys — registering a passkey: its options (with the proof an account's second
 * factor asks), a challenge for that proof, and the authenticator's answer. Open to an account
 * that must still enrol a second factor under the two-factor policy (docs/API.md#passkeys).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { RegistrationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { PROOF_BUDGET, proofOf, REAUTH, SECOND_FACTOR, tags } from './route-responses.js'
import { beginPasskeyProof } from './proof.js'
import {
  AssertionOptionsView,
  PasskeyView,
  RegistrationBody,
  RegistrationOptionsBody,
  RegistrationOptionsView,
} from './schemas.js'
import { beginRegistration, completeRegistration } from './service.js'

export function passkeyRegistrationRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/registration/options',
      {
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'beginPasskeyRegistration',
          summary:
            'Start registering a passkey: the options for navigator.credentials.create, valid 5 minutes, bound to this session',
          description:
            "Needs the password (an account without one: a recent sign-in, else 403 RECENT_SIGN_IN_REQUIRED) and, when the account has a second factor, that factor now: `code` (TOTP or backup code) or `passkey` (an answer to POST /api/auth/passkeys/proof/options). Inside the session's re-authentication window (POST /api/auth/reauthenticate) both may be left out.",
          body: RegistrationOptionsBody,
          response: {
            200: RegistrationOptionsView,
            400: errorResponse(`VALIDATION_FAILED, ${REAUTH}, ${SECOND_FACTOR}`),
            403: errorResponse(
              'RECENT_SIGN_IN_REQUIRED: an account without a password, signed in more than 5 minutes ago',
            ),
            409: errorResponse(
              'LIMIT_REACHED: 20 passkeys; PASSKEY_CHALLENGE_EXPIRED: the proof challenge is unknown, used or expired',
            ),
            429: PROOF_BUDGET,
          },
        },
      },
      async (request) =>
        beginRegistration(deps, callerOf(request), proofOf(request.body), contextOf(request)),
    )

    app.post(
      '/proof/options',
      {
        config: { auth: 'session' },
        schema: {
          tags,
          operationId: 'beginPasskeyProof',
          summary:
            'A challenge for one of your passkeys, bound to this session: its answer is the `passkey` proof of adding a passkey or deleting the last second factor',
          response: {
            200: AssertionOptionsView,
            404: errorResponse('NOT_FOUND: the account has no passkey'),
          },
        },
      },
      async (request) => beginPasskeyProof(deps, callerOf(request)),
    )

    app.post(
      '/registration',
      {
        config: { auth: 'session', allowedDuringEnrollment: true },
        schema: {
          tags,
          operationId: 'completePasskeyRegistration',
          summary:
            "Finish registering with the authenticator's answer (attestation 'none' is enough)",
          body: RegistrationBody,
          response: {
            201: PasskeyView,
            400: errorResponse(
              'VALIDATION_FAILED, PASSKEY_VERIFICATION_FAILED (the message names the check)',
            ),
            409: errorResponse(
              'PASSKEY_CHALLENGE_EXPIRED, ALREADY_EXISTS (this credential is registered), LIMIT_REACHED',
            ),
          },
        },
      },
      async (request, reply) => {
        const input = {
          name: request.body.name,
          credential: request.body.credential as unknown as RegistrationResponseJSON,
        }
        return reply
          .code(201)
          .send(await completeRegistration(deps, callerOf(request), input, contextOf(request)))
      },
    )
  }
}
