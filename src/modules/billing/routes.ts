import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../../deps.js'
import { PageQuery } from '../../lib/schema-types.js'
import { callerOf, contextOf } from '../../identity/hook.js'
import { errorResponse } from '../../plugins/openapi.js'
import { perUser } from '../../plugins/rate-limit.js'
import { createCheckoutSession } from './checkout.service.js'
import { listPlans } from './plans.js'
import { CheckoutBody, CheckoutSessionView, PlanPage } from './schemas.js'
import { webhookRoutes } from './webhook.routes.js'

const tags = ['billing']

/**
 * /api/billing — plans, Stripe Checkout for organization owners, and Stripe's webhook
 * (docs/API.md#billing).
 */
export function billingRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/plans',
      {
        schema: {
          tags,
          operationId: 'listBillingPlans',
          summary: 'The plans on sale (none while billing is not configured)',
          querystring: PageQuery,
          response: { 200: PlanPage },
        },
      },
      async (request) => listPlans(deps, request.query),
    )

    app.post(
      '/checkout-session',
      {
        // Every attempt counts: each one that gets through calls Stripe.
        config: { rateLimit: perUser(10, 15) },
        schema: {
          tags,
          operationId: 'createCheckoutSession',
          summary: "Start a Stripe Checkout for an organization's subscription (owner)",
          body: CheckoutBody,
          response: {
            201: CheckoutSessionView,
            400: errorResponse(
              'VALIDATION_FAILED: also an unknown plan, an interval the plan is not sold in, or a return URL on another origin',
            ),
            403: errorResponse(
              'FORBIDDEN: only owners manage billing; CSRF_FAILED (cookie authentication)',
            ),
            404: errorResponse('NOT_FOUND: no such organization, or you are not a member'),
            429: errorResponse('RATE_LIMITED: 10 checkout attempts per 15 minutes per user'),
            502: errorResponse('UPSTREAM_FAILED: Stripe failed or could not be reached'),
            503: errorResponse('NOT_CONFIGURED: no Stripe secret key or no plans'),
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await createCheckoutSession(deps, callerOf(request), request.body, contextOf(request)),
          ),
    )

    await app.register(webhookRoutes(deps))
  }
}
