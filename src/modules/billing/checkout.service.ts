/**
 * POST /api/billing/checkout-session (docs/API.md#billing): an organization owner starts a Stripe
 * Checkout for a subscription. Checks, in order: membership and role (404 / 403), billing
 * configured (503), plan and interval (400), return URLs (400). Then the organization's Stripe
 * customer — created on first use and stored — and the session. Stripe is called outside any
 * transaction; its failures are 502.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError, invalidField } from '../../errors.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { requirePermission } from '../organizations/access.js'
import type { OrganizationRecord } from '../organizations/repo.js'
import { purchasablePlans } from './plans.js'
import { findStripeCustomerId, storeStripeCustomerId } from './repo.js'
import type { CheckoutBody, CheckoutSessionView } from './schemas.js'
import { StripeUpstreamError, type StripeAdapter } from './stripe.js'

const SESSION_ID_PLACEHOLDER = '{CHECKOUT_SESSION_ID}'

/**
 * A return URL on this service's own origin, so a checkout cannot be made to send the payer
 * somewhere else. Sent in its normalised form (what was checked is what Stripe gets), with Stripe's
 * session-id placeholder kept intact wherever it was written.
 */
function returnUrl(deps: Deps, field: string, sent: string | undefined, fallback: string): string {
  if (sent === undefined) return fallback
  let url: URL
  try {
    url = new URL(sent)
  } catch {
    throw invalidField(field, 'must be an absolute URL')
  }
  if (url.origin !== new URL(deps.config.publicUrl).origin)
    throw invalidField(field, `must be on ${new URL(deps.config.publicUrl).origin}`)
  return url.href.replaceAll(encodeURI(SESSION_ID_PLACEHOLDER), SESSION_ID_PLACEHOLDER)
}

/** Stripe's failure as a 502 with its safe message; what Stripe said goes to the log. */
async function upstream<T>(deps: Deps, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (!(error instanceof StripeUpstreamError)) throw error
    deps.logger.warn({ stripe: error.details }, `stripe: ${what} failed`)
    throw new AppError('UPSTREAM_FAILED', { message: error.message })
  }
}

/**
 * The organization's customer. A first checkout creates it under an idempotency key derived from
 * the organization, so concurrent first checkouts get the same customer from Stripe; the first one
 * stored wins and everyone uses it.
 */
async function customerOf(
  deps: Deps,
  stripe: StripeAdapter,
  organization: OrganizationRecord,
): Promise<string> {
  const stored = await findStripeCustomerId(deps.db, organization.id)
  if (stored !== null) return stored
  const created = await upstream(deps, 'creating the customer', () =>
    stripe.createCustomer({ organizationId: organization.id, name: organization.name }),
  )
  try {
    if (await storeStripeCustomerId(deps.db, organization.id, created)) return created
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
  }
  return (await findStripeCustomerId(deps.db, organization.id)) ?? created
}

export async function createCheckoutSession(
  deps: Deps,
  caller: Caller,
  input: CheckoutBody,
  ctx: RequestContext,
): Promise<CheckoutSessionView> {
  const organization = await requirePermission(
    deps.db,
    input.organization_id,
    caller.user.id,
    'billing',
  )
  const stripe = deps.stripe
  const plans = purchasablePlans(deps)
  if (stripe === null || plans.length === 0)
    throw new AppError('NOT_CONFIGURED', { message: 'Billing is not configured on this instance.' })
  const plan = plans.find((candidate) => candidate.id === input.plan)
  if (plan === undefined) throw invalidField('plan', 'is not a plan of this instance')
  const priceId = plan.prices[input.interval]
  if (priceId === undefined)
    throw invalidField('interval', `is not offered for the plan ${plan.id}`)
  const base = deps.config.publicUrl
  const successUrl = returnUrl(
    deps,
    'success_url',
    input.success_url,
    `${base}/billing/success?session_id=${SESSION_ID_PLACEHOLDER}`,
  )
  const cancelUrl = returnUrl(deps, 'cancel_url', input.cancel_url, `${base}/billing/cancel`)

  const customerId = await customerOf(deps, stripe, organization)
  const session = await upstream(deps, 'creating the checkout session', () =>
    stripe.createCheckoutSession({
      customerId,
      priceId,
      successUrl,
      cancelUrl,
      organizationId: organization.id,
      planId: plan.id,
    }),
  )
  await recordAudit(deps.db, deps.clock, ctx, {
    action: 'billing.checkout_create',
    actor: caller.user,
    target: { type: 'organization', id: organization.id },
    metadata: { plan: plan.id, interval: input.interval, session_id: session.id },
  })
  return { id: session.id, url: session.url, expires_at: session.expiresAt.toISOString() }
}
