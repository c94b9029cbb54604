import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { IdParams } from '../../lib/schema-types.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perIp, perUser } from '../../plugins/rate-limit.js'
import { AdminProofBody } from '../admin/users.schemas.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import {
  AdminResetLinkView,
  AdminResetMailView,
  CompleteResetBody,
  RequestResetBody,
  ResetAvailabilityView,
  ResetLinkView,
  ResetOutcomeView,
  ResetRequestedView,
  ResetTokenBody,
} from './schemas.js'
import {
  completePasswordReset,
  createResetLinkAsAdmin,
  getResetAvailability,
  inspectPasswordReset,
  mailResetLinkAsAdmin,
  requestPasswordReset,
  type Background,
} from './service.js'

const tags = ['authentication']
const INVALID_LINK = 'RESET_LINK_INVALID: the link is unknown, expired or already used'
const PROVIDER_ONLY =
  'PASSWORD_MANAGED_BY_PROVIDER: the account signs in only through its identity provider'

/**
 * Work that runs after the answer has left: started on the next turn of the event loop (on SQLite
 * the driver is synchronous, so a lookup started now would run before the reply is written), and
 * awaited when the server closes, so a shutdown does not cut a mail off halfway.
 */
function backgroundRunner(deps: Deps): { run: Background; drain: () => Promise<void> } {
  const pending = new Set<Promise<void>>()
  return {
    run: (task) => {
      const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .catch((error: unknown) =>
          deps.logger.error({ err: error }, 'a background password reset task failed'),
        )
        .finally(() => pending.delete(done))
      pending.add(done)
    },
    drain: async () => {
      await Promise.allSettled([...pending])
    },
  }
}

/** /api/auth/password-reset — public: the person who forgot their password is signed out. */
export function passwordResetRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const background = backgroundRunner(deps)
    app.addHook('onClose', background.drain)

    app.get(
      '',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'getPasswordResetAvailability',
          summary: 'Whether a password reset link can be mailed on this instance',
          response: { 200: ResetAvailabilityView },
        },
      },
      async () => getResetAvailability(deps),
    )

    app.post(
      '',
      {
        config: { auth: 'public', rateLimit: perIp(10, 15) },
        schema: {
          tags,
          operationId: 'requestPasswordReset',
          summary:
            'Mail a single-use password reset link (valid 30 minutes) to the address, if it has an account',
          description:
            'The answer is the same — status, body and time — whether or not the address has an account; the link (or, for an account that signs in only through an identity provider, a note saying so) is mailed in the background.',
          body: RequestResetBody,
          response: {
            202: ResetRequestedView,
            429: errorResponse(
              'RATE_LIMITED: 10 requests per 15 minutes per IP, or 3 per 15 minutes per address',
            ),
            503: errorResponse(
              'NOT_CONFIGURED: outgoing mail (SMTP) is not configured; ask an administrator',
            ),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(await requestPasswordReset(deps, request.body, contextOf(request), background.run)),
    )

    app.post(
      '/inspect',
      {
        config: { auth: 'public', rateLimit: perIp(60, 15) },
        schema: {
          tags,
          operationId: 'inspectPasswordReset',
          summary:
            'What a reset link is for (without using it): the account, its second factor and API tokens',
          body: ResetTokenBody,
          response: {
            200: ResetLinkView,
            400: errorResponse(INVALID_LINK),
            429: errorResponse('RATE_LIMITED: 60 per 15 minutes per IP'),
          },
        },
      },
      async (request) => inspectPasswordReset(deps, request.body),
    )

    app.post(
      '/complete',
      {
        config: { auth: 'public', rateLimit: perIp(30, 15) },
        schema: {
          tags,
          operationId: 'completePasswordReset',
          summary:
            'Set a new password with a reset link: every session ends; API tokens are revoked only when asked',
          description:
            'The second factor stays: an account with two-factor authentication still needs it at the next sign-in.',
          body: CompleteResetBody,
          response: {
            200: ResetOutcomeView,
            400: errorResponse(
              `${INVALID_LINK}; VALIDATION_FAILED: new_password breaks the password rules`,
            ),
            409: errorResponse(PROVIDER_ONLY),
            429: errorResponse('RATE_LIMITED: 30 per 15 minutes per IP'),
          },
        },
      },
      async (request) => completePasswordReset(deps, request.body, contextOf(request)),
    )
  }
}

/** /api/admin/users/{id}/password-reset/… — an administrator helps someone back in. */
export function adminPasswordResetRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/:id/password-reset/mail',
      {
        config: { auth: 'admin', rateLimit: perUser(10, 15) },
        schema: {
          tags: ['administration'],
          operationId: 'mailPasswordResetLink',
          summary: "Mail a single-use password reset link (valid 30 minutes) to the user's address",
          params: IdParams,
          response: {
            202: AdminResetMailView,
            404: errorResponse('NOT_FOUND: no such user'),
            409: errorResponse(PROVIDER_ONLY),
            429: errorResponse('RATE_LIMITED: 10 per 15 minutes per administrator'),
            502: errorResponse('UPSTREAM_FAILED: the mail could not be sent; no link was created'),
            503: errorResponse(
              'NOT_CONFIGURED: outgoing mail (SMTP) is not configured; create a copyable link instead',
            ),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(
            await mailResetLinkAsAdmin(
              deps,
              callerOf(request),
              request.params.id,
              contextOf(request),
            ),
          ),
    )

    app.post(
      '/:id/password-reset/link',
      {
        config: { auth: 'admin', rateLimit: perUser(10, 15) },
        schema: {
          tags: ['administration'],
          operationId: 'createPasswordResetLink',
          summary:
            'Create a single-use password reset link (valid 24 hours) to hand over, for an instance without mail',
          description:
            "Whoever holds the link can set the password, so this needs what setting a password needs: an interactive session (403 SESSION_REQUIRED for API tokens) and the acting administrator's current_password (when they have one) and code (when their MFA is on). Your own account → 409 SELF_SERVICE_REQUIRED.",
          params: IdParams,
          body: AdminProofBody,
          response: {
            201: AdminResetLinkView,
            400: errorResponse(
              "PASSWORD_REQUIRED, INVALID_PASSWORD, INVALID_CODE, VALIDATION_FAILED (code): the administrator's own proof",
            ),
            403: errorResponse('SESSION_REQUIRED: an API token'),
            404: errorResponse('NOT_FOUND: no such user'),
            409: errorResponse(`${PROVIDER_ONLY}; SELF_SERVICE_REQUIRED: your own account`),
            429: errorResponse(
              'RATE_LIMITED: 10 per 15 minutes per administrator, or too many wrong passwords or codes',
            ),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await createResetLinkAsAdmin(
              deps,
              callerOf(request),
              request.params.id,
              request.body ?? {},
              contextOf(request),
            ),
          ),
    )
  }
}
