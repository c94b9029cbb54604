import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Deps } from '../../deps.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { ChangeEmailBody, EmailVerifiedView, VerifyEmailBody } from './email-change.schemas.js'
import { requestEmailChange, verifyEmailChange } from './email-change.service.js'
import { UserView } from './schemas.js'
import { toUserView } from './view.js'

const tags = ['current user']
const User = Type.Ref(UserView)

export function emailChangeRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/me/email',
      {
        config: { auth: 'session', rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'requestEmailChange',
          summary: 'Ask to change your email: a verification link goes to the new address',
          description:
            "The proof fields may be left out inside the session's re-authentication window (POST /api/auth/reauthenticate); a proof sent is checked.",
          body: ChangeEmailBody,
          response: {
            202: User,
            400: errorResponse(
              'VALIDATION_FAILED (also: the address is already yours), PASSWORD_REQUIRED, INVALID_PASSWORD',
            ),
            409: errorResponse(
              'EMAIL_MANAGED_BY_PROVIDER: the account is linked to an identity provider; ALREADY_EXISTS: the address has an account',
            ),
            429: errorResponse(
              'RATE_LIMITED: 10 requests per 15 minutes, or too many wrong passwords; RECIPIENT_MAIL_LIMIT: 3 mails per address per 24 hours; ' +
                'INSTANCE_MAIL_LIMIT: the hourly cap on mail users trigger (MAIL_HOURLY_LIMIT)',
            ),
            502: errorResponse('UPSTREAM_FAILED: the mail could not be sent; nothing was changed'),
            503: errorResponse(
              'NOT_CONFIGURED: outgoing mail (SMTP) is not configured; nothing was changed',
            ),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(
            toUserView(
              await requestEmailChange(deps, callerOf(request), request.body, contextOf(request)),
            ),
          ),
    )

    app.post(
      '/email/verify',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'verifyEmailChange',
          summary: 'Confirm an email change with the token from the verification link',
          body: VerifyEmailBody,
          response: {
            200: EmailVerifiedView,
            400: errorResponse(
              'VALIDATION_FAILED: the token is unknown, expired or already used (field token)',
            ),
            409: errorResponse('ALREADY_EXISTS: another account took the address meanwhile'),
          },
        },
      },
      async (request) => ({
        email: (await verifyEmailChange(deps, request.body, contextOf(request))).email,
      }),
    )
  }
}
