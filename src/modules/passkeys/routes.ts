import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import { IdParams, NoContent } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { answerSignIn } from '../auth/responses.js'
import { SignInView } from '../auth/schemas.js'
import {
  AssertionOptionsView,
  DeleteBody,
  MfaOptionsBody,
  MfaVerifyBody,
  PasskeyPage,
  PasskeyView,
  PasswordlessBody,
  PasswordlessOptionsView,
  RegistrationBody,
  RegistrationOptionsBody,
  RegistrationOptionsView,
  RenameBody,
} from './schemas.js'
import {
  beginRegistration,
  completeRegistration,
  deleteOwnPasskey,
  listOwnPasskeys,
  renameOwnPasskey,
} from './service.js'
import { beginPasskeyProof } from './proof.js'
import {
  beginPasskeyMfa,
  beginPasswordless,
  completePasskeyMfa,
  completePasswordless,
} from './sign-in.js'

const tags = ['passkeys']
const REAUTH = 'PASSWORD_REQUIRED, INVALID_PASSWORD'
const SECOND_FACTOR =
  'SECOND_FACTOR_REQUIRED, INVALID_CODE, PASSKEY_VERIFICATION_FAILED (the proof)'
const PROOF_BUDGET = errorResponse(
  'RATE_LIMITED: 10 wrong passwords, 10 wrong codes, 10 refused passkey answers per account per 15 minutes (three budgets)',
)
const SIGN_IN_REFUSED =
  'PASSKEY_CHALLENGE_EXPIRED (the challenge is unknown, used or expired), PASSKEY_VERIFICATION_FAILED (the message names the check)'

/**
 * /api/auth/passkeys — WebAuthn credentials as a second factor and for signing in without a
 * password. Listing and registering stay open to an account that must still enrol a second factor
 * under the two-factor policy (docs/API.md#passkeys).
 */
export function passkeyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
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
      async (request) => {
        const { password, code, passkey } = request.body
        const proof = {
          password,
          code,
          passkey: passkey as unknown as AuthenticationResponseJSON | undefined,
        }
        return beginRegistration(deps, callerOf(request), proof, contextOf(request))
      },
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
        const { password, code, passkey } = request.body ?? {}
        const proof = {
          password,
          code,
          passkey: passkey as unknown as AuthenticationResponseJSON | undefined,
        }
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

    app.post(
      '/mfa/options',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'beginPasskeyMfa',
          summary:
            'Sign-in second step with a passkey: options for navigator.credentials.get, bound to the mfa_token',
          body: MfaOptionsBody,
          response: {
            200: AssertionOptionsView,
            401: errorResponse('MFA_PENDING_INVALID'),
            404: errorResponse('NOT_FOUND: the account has no passkey'),
          },
        },
      },
      async (request) => beginPasskeyMfa(deps, request.body),
    )

    app.post(
      '/mfa/verify',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'verifyPasskeyMfa',
          summary:
            "Sign-in second step: the mfa_token and the passkey's answer; the same 200 as any sign-in",
          body: MfaVerifyBody,
          response: {
            200: SignInView,
            401: errorResponse(`MFA_PENDING_INVALID, ${SIGN_IN_REFUSED}`),
            429: errorResponse(
              "RATE_LIMITED: 5 refusals per mfa_token, 10 passkey refusals per account per 15 minutes (apart from the codes' budget)",
            ),
          },
        },
      },
      async (request, reply) => {
        const input = {
          mfa_token: request.body.mfa_token,
          credential: request.body.credential as unknown as AuthenticationResponseJSON,
        }
        return answerSignIn(reply, deps, await completePasskeyMfa(deps, input, contextOf(request)))
      },
    )

    app.post(
      '/login/options',
      {
        config: { auth: 'public', rateLimit: perIp(300, 15) },
        schema: {
          tags,
          operationId: 'beginPasskeySignIn',
          summary:
            'Sign in without a password: an attempt token and options for navigator.credentials.get (any passkey of this site)',
          response: {
            200: PasswordlessOptionsView,
            429: errorResponse('RATE_LIMITED: 300 per 15 minutes per IP'),
          },
        },
      },
      async () => beginPasswordless(deps),
    )

    app.post(
      '/login',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'signInWithPasskey',
          summary:
            "Sign in without a password: the attempt token and the passkey's answer (user verification required)",
          body: PasswordlessBody,
          response: {
            200: SignInView,
            401: errorResponse(SIGN_IN_REFUSED),
            429: errorResponse(
              "RATE_LIMITED: 5 refusals per attempt, 100 sign-in failures per IP per 15 minutes (never the account's budget)",
            ),
          },
        },
      },
      async (request, reply) => {
        const input = {
          attempt_token: request.body.attempt_token,
          credential: request.body.credential as unknown as AuthenticationResponseJSON,
        }
        return answerSignIn(
          reply,
          deps,
          await completePasswordless(deps, input, contextOf(request)),
        )
      },
    )
  }
}
