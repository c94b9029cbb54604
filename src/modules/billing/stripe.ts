/**
 * The Stripe adapter (docs/ARCHITECTURE.md, convention 9): the two API calls billing makes and
 * webhook signature checking, through the official library. STRIPE_API_BASE points the library at
 * another host — a local stand-in in tests — while this code stays the same.
 *
 * Failures come back as StripeUpstreamError with a message safe to show (the HTTP status and
 * Stripe's machine-readable error code): Stripe's own text can quote parts of the key.
 */
import { createRequire } from 'node:module'
import type Stripe from 'stripe'
import type { BillingConfig } from '../../config.js'

export interface CheckoutRequest {
  customerId: string
  priceId: string
  successUrl: string
  cancelUrl: string
  organizationId: string
  planId: string
}

export interface CheckoutSession {
  id: string
  url: string
  expiresAt: Date
}

export interface StripeAdapter {
  /**
   * Creates the organization's customer; the same organization always gets the same idempotency
   * key.
   */
  createCustomer(input: { organizationId: string; name: string }): Promise<string>
  createCheckoutSession(input: CheckoutRequest): Promise<CheckoutSession>
}

export class StripeUpstreamError extends Error {
  constructor(
    message: string,
    /** For the log: what Stripe said, without its text. */
    readonly details: { type?: string; status?: number; code?: string; request_id?: string } = {},
  ) {
    super(message)
    this.name = 'StripeUpstreamError'
  }
}

// The library is large and only billing uses it: loaded on first use, so an instance without
// billing never loads it (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)
let library: typeof Stripe | undefined
function stripeLibrary(): typeof Stripe {
  return (library ??= require('stripe') as typeof Stripe)
}

const TIMEOUT_MS = 10_000
// Retries (with the library's idempotency keys) cover dropped connections, 5xx answers and the 409
// of two concurrent requests with one idempotency key.
const MAX_NETWORK_RETRIES = 2
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/

function upstreamError(error: unknown): StripeUpstreamError {
  const Stripe = stripeLibrary()
  if (!(error instanceof Stripe.errors.StripeError))
    return new StripeUpstreamError('Stripe could not be reached.')
  const details = {
    type: error.type,
    ...(error.statusCode !== undefined && { status: error.statusCode }),
    ...(error.code !== undefined && ERROR_CODE.test(error.code) && { code: error.code }),
    ...(error.requestId !== undefined && { request_id: error.requestId }),
  }
  if (error instanceof Stripe.errors.StripeConnectionError || error.statusCode === undefined) {
    return new StripeUpstreamError('Stripe could not be reached.', details)
  }
  return new StripeUpstreamError(
    `Stripe answered HTTP ${error.statusCode}${details.code === undefined ? '' : ` (${details.code})`}.`,
    details,
  )
}

async function calling<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (error) {
    throw upstreamError(error)
  }
}

/**
 * The adapter, or null when no secret key is configured (billing then answers 503 NOT_CONFIGURED).
 */
export function createStripeAdapter(billing: BillingConfig): StripeAdapter | null {
  if (billing.stripeSecretKey === undefined) return null
  const StripeClient = stripeLibrary()
  const stripe = new StripeClient(billing.stripeSecretKey, {
    timeout: TIMEOUT_MS,
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    appInfo: { name: 'Switchboard' },
    ...billing.stripeApi,
  })
  return {
    async createCustomer({ organizationId, name }) {
      const customer = await calling(() =>
        stripe.customers.create(
          { name, metadata: { organization_id: organizationId } },
          // Two concurrent first checkouts of one organization get one customer.
          { idempotencyKey: `switchboard-customer-${organizationId}` },
        ),
      )
      return customer.id
    },

    async createCheckoutSession(input) {
      const metadata = { organization_id: input.organizationId, plan: input.planId }
      const session = await calling(() =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer: input.customerId,
          line_items: [{ price: input.priceId, quantity: 1 }],
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          client_reference_id: input.organizationId,
          metadata,
          // Carried by the subscription too, so its later events name the organization and plan.
          subscription_data: { metadata },
        }),
      )
      if (session.url === null)
        throw new StripeUpstreamError('Stripe answered without a checkout page URL.')
      return { id: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000) }
    },
  }
}

/** The parts of a Stripe event that billing reads; everything else is left alone. */
export interface StripeEvent {
  id: string
  type: string
  /** Seconds since 1970. */
  created: number
  data: { object: Record<string, unknown> }
}

/** A webhook request refused before its event is read; `field` and `message` go into `details`. */
export class WebhookRejected extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
    this.name = 'WebhookRejected'
  }
}

/**
 * Checks the Stripe-Signature header against the raw body (HMAC-SHA256 under the endpoint secret,
 * timestamp within Stripe's 5-minute tolerance of `now`) and returns the event it signs.
 */
export function verifyStripeEvent(
  payload: Buffer,
  signature: string,
  secret: string,
  now: Date,
): StripeEvent {
  let event: unknown
  try {
    event = stripeLibrary().webhooks.constructEvent(
      payload,
      signature,
      secret,
      undefined,
      undefined,
      now.getTime(),
    )
  } catch {
    throw new WebhookRejected(
      'stripe-signature',
      'is not a valid, current signature of this payload',
    )
  }
  const e = event as Partial<StripeEvent> | null
  if (
    typeof e?.id !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.created !== 'number' ||
    typeof e.data?.object !== 'object' ||
    e.data.object === null
  ) {
    throw new WebhookRejected('body', 'is not a Stripe event')
  }
  return e as StripeEvent
}
