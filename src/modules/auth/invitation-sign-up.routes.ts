/** POST /api/invitations/sign-up: create the invited account from the link, join, sign in. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp } from '../../plugins/rate-limit.js'
import { signUpWithInvitation } from '../organizations/sign-up.js'
import { answerSignIn } from './responses.js'
import { InvitationSignUpBody, InvitationSignUpView } from './schemas.js'

export function invitationSignUpRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/sign-up',
      {
        config: { auth: 'public', rateLimit: perIp(10, 15) },
        schema: {
          tags: ['organizations'],
          operationId: 'signUpWithInvitation',
          summary:
            'Create the account of the invited address from the link, join with the invited role and sign in',
          description:
            'The link is the proof of the address: no verification mail. The link is spent, so a second use asks to sign in.',
          body: InvitationSignUpBody,
          response: {
            201: InvitationSignUpView,
            400: errorResponse(
              'VALIDATION_FAILED: the token is invalid, expired or used; the password breaks the rules',
            ),
            403: errorResponse('FORBIDDEN: sign-up through invitations is switched off'),
            409: errorResponse('ALREADY_EXISTS: an account has the address: sign in to accept'),
            429: errorResponse('RATE_LIMITED: 10 per 15 minutes per IP'),
          },
        },
      },
      async (request, reply) => {
        const { signIn, organization } = await signUpWithInvitation(
          deps,
          request.body,
          contextOf(request),
        )
        return reply.code(201).send({ ...answerSignIn(reply, deps, signIn), organization })
      },
    )
  }
}
