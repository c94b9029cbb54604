/**
 * What a Stripe event means for an organization's plan — a pure reading of the event:
 *
 * - `checkout.session.completed` (subscription mode, paid or free of charge): the organization of
 *   `client_reference_id` gets the plan in the session's metadata, and the session's customer.
 *   A session still awaiting an asynchronous payment changes nothing; the subscription's events
 *   follow when it settles.
 * - `customer.subscription.updated`: for the customer's organization, by status —
 *   active, trialing        → the plan whose price the subscription has;
 *   past_due, incomplete    → unchanged (Stripe is still collecting; the plan stays meanwhile);
 *   canceled, unpaid, incomplete_expired, paused → free.
 * - `customer.subscription.deleted`: free.
 * - Anything else, or an event naming no known plan: no change.
 */
import type { BillingConfig } from '../../config.js'
import { planOfPrice } from './plans.js'
import type { StripeEvent } from './stripe.js'

export const FREE_PLAN = 'free'

export type PlanChange =
  | { organizationId: string; customerId: string | null; plan: string }
  | { organizationId?: undefined; customerId: string; plan: string }

const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused'])
const LIVE = new Set(['active', 'trialing'])

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/** Stripe sends a customer as its id, or as the object when expanded. */
function customerIdOf(value: unknown): string | null {
  return text(value) ?? text((value as { id?: unknown } | null)?.id)
}

function subscriptionPlan(
  billing: BillingConfig,
  subscription: Record<string, unknown>,
): string | null {
  const items = (subscription.items as { data?: unknown } | undefined)?.data
  if (!Array.isArray(items)) return null
  for (const item of items as Array<{ price?: { id?: unknown } } | null>) {
    const priceId = text(item?.price?.id)
    const plan = priceId === null ? null : planOfPrice(billing, priceId)
    if (plan !== null) return plan.id
  }
  return null
}

/** The plan change the event asks for, or null when it asks for none (see above). */
export function planChangeOf(billing: BillingConfig, event: StripeEvent): PlanChange | null {
  const object = event.data.object
  switch (event.type) {
    case 'checkout.session.completed': {
      const organizationId = text(object.client_reference_id)
      const plan = text((object.metadata as { plan?: unknown } | null)?.plan)
      const settled =
        object.payment_status === 'paid' || object.payment_status === 'no_payment_required'
      if (object.mode !== 'subscription' || !settled || organizationId === null || plan === null)
        return null
      if (!billing.plans.some((candidate) => candidate.id === plan)) return null
      return { organizationId, customerId: customerIdOf(object.customer), plan }
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const customerId = customerIdOf(object.customer)
      if (customerId === null) return null
      const status = text(object.status)
      if (event.type === 'customer.subscription.deleted' || (status !== null && ENDED.has(status)))
        return { customerId, plan: FREE_PLAN }
      if (status === null || !LIVE.has(status)) return null
      const plan = subscriptionPlan(billing, object)
      return plan === null ? null : { customerId, plan }
    }
    default:
      return null
  }
}
