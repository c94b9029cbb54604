/**
 * /api/auth/passkeys — signing in with a passkey: as the second step after the password, or
 * without a password at all.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps.js'
import { contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { answerSignIn } from '../auth/responses.js'
import { tags } from './route-responses.js'
import { SignInView } from '../auth/schemas.js'
import {
  AssertionOptionsView,
  MfaOptionsBody,
  MfaVerifyBody,
  PasswordlessBody,
  PasswordlessOptionsView,
} from './schemas.js'
import {
  beginPasskeyMfa,
  beginPasswordless,
  completePasskeyMfa,
  completePasswordless,
} from './sign-in.js'

const SIGN_IN_REFUSED =
  'PASSKEY_CHALLENGE_EXPIRED (the challenge is unknown, used or expired), PASSKEY_VERIFICATION_FAILED (the message names the check)'

export function passkeySignInRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
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
