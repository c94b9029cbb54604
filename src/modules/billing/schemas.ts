import { Type, type Static } from '@sinclair/typebox'
import { BILLING_INTERVALS, type BillingInterval } from '../../config.js'
import { Body, PageOf, Text, Timestamp } from '../../lib/schema-types.js'

const Interval = Type.Unsafe<BillingInterval>({ type: 'string', enum: [...BILLING_INTERVALS] })

/** docs/API.md#billing: a plan of BILLING_PLANS, with the intervals it is sold in. */
export const PlanView = Type.Object({
  id: Type.String({ examples: ['pro'] }),
  name: Type.String(),
  intervals: Type.Array(Interval),
})
export type PlanView = Static<typeof PlanView>

export const PlanPage = PageOf(PlanView)

const ReturnUrl = (what: string) =>
  Type.Optional(
    Text({
      minLength: 1,
      maxLength: 2048,
      description: `${what}; must be on this service's own origin (PUBLIC_URL)`,
    }),
  )

export const CheckoutBody = Body({
  organization_id: Text({ minLength: 1, maxLength: 200 }),
  plan: Text({ minLength: 1, maxLength: 64, description: 'A plan id of GET /api/billing/plans' }),
  interval: Interval,
  success_url: ReturnUrl(
    'Where Stripe sends the payer afterwards; {CHECKOUT_SESSION_ID} is replaced by the session id',
  ),
  cancel_url: ReturnUrl('Where Stripe sends a payer who gives up'),
})
export type CheckoutBody = Static<typeof CheckoutBody>

/** docs/API.md#billing: `url` is Stripe's hosted checkout page. */
export const CheckoutSessionView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  expires_at: Timestamp(),
})
export type CheckoutSessionView = Static<typeof CheckoutSessionView>

export const WebhookHeaders = Type.Object({
  'stripe-signature': Type.String({
    minLength: 1,
    maxLength: 4096,
    description: "Stripe's signature of the raw body: t=<timestamp>,v1=<HMAC-SHA256>",
  }),
})

/**
 * What Stripe sends (documentation only: the route reads the raw bytes, which the signature
 * covers). Events of other types are acknowledged and ignored.
 */
export const StripeEvent = Type.Object(
  {
    id: Type.String({ examples: ['evt_1NG8Du2eZvKYlo2CUI79vXWy'] }),
    type: Type.String({
      examples: [
        'checkout.session.completed',
        'customer.subscription.updated',
        'customer.subscription.deleted',
      ],
    }),
    created: Type.Number({ description: 'Unix time of the event' }),
    data: Type.Object(
      { object: Type.Object({}, { additionalProperties: true }) },
      { additionalProperties: true },
    ),
  },
  {
    title: 'StripeEvent',
    additionalProperties: true,
    description:
      'A Stripe event exactly as Stripe sent it (at most 64 KiB): the Stripe-Signature header is verified against these bytes',
  },
)
export type WebhookHeaders = Static<typeof WebhookHeaders>

export const WebhookAck = Type.Object({ received: Type.Literal(true) })
