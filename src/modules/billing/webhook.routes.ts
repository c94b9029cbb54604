/**
 * POST /api/billing/webhook in a plugin of its own: its JSON body is kept as the raw bytes, since
 * the Stripe signature covers exactly those bytes (parsed and re-serialised JSON would not match).
 * Public (Stripe signs, it does not sign in) — so no CSRF either — and outside the general rate
 * limit, which must not drop Stripe's deliveries.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { StripeEvent, WebhookAck, WebhookHeaders } from './schemas.js'
import { handleStripeWebhook } from './webhook.service.js'

export function webhookRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    )

    app.post(
      '/webhook',
      {
        config: { auth: 'public', rateLimit: false },
        schema: {
          tags: ['billing'],
          operationId: 'receiveStripeWebhook',
          summary:
            "Stripe's events (signed with STRIPE_WEBHOOK_SECRET): checkout completed, subscription updated or deleted",
          headers: WebhookHeaders,
          rawBody: StripeEvent,
          response: {
            200: WebhookAck,
            400: errorResponse(
              'VALIDATION_FAILED: missing or invalid Stripe-Signature (details: stripe-signature)',
            ),
            503: errorResponse('NOT_CONFIGURED: no STRIPE_WEBHOOK_SECRET'),
          },
        },
      },
      async (request) => {
        await handleStripeWebhook(
          deps,
          (request.body as Buffer | undefined) ?? Buffer.alloc(0),
          request.headers['stripe-signature'],
          contextOf(request),
        )
        return { received: true as const }
      },
    )
  }
}
