/**
 * POST /api/billing/webhook (docs/API.md#billing): Stripe's signed events. The signature is checked
 * on the raw body before anything is read. Each event id is processed once: it is recorded in the
 * same transaction as the plan change it causes, so a redelivery — even a concurrent one — finds
 * it recorded and changes nothing; events that change nothing are recorded too.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import type { Logger } from '../../logger.js'
import { AppError, invalidField } from '../../errors.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import { planChangeOf, type PlanChange } from './events.js'
import {
  changePlan,
  findOrganizationIdByCustomer,
  organizationExists,
  recordBillingEvent,
  storeStripeCustomerId,
} from './repo.js'
import { verifyStripeEvent, WebhookRejected, type StripeEvent } from './stripe.js'

function verified(deps: Deps, payload: Buffer, signature: string): StripeEvent {
  const secret = deps.config.billing.stripeWebhookSecret
  if (secret === undefined)
    throw new AppError('NOT_CONFIGURED', { message: 'No Stripe webhook secret is configured.' })
  try {
    return verifyStripeEvent(payload, signature, secret, deps.clock.now())
  } catch (error) {
    if (error instanceof WebhookRejected) throw invalidField(error.field, error.message)
    throw error
  }
}

/** The organization a change is for: named by the checkout, or found by its Stripe customer. */
async function organizationOf(ex: Executor, change: PlanChange): Promise<string | null> {
  if (change.organizationId === undefined)
    return findOrganizationIdByCustomer(ex, change.customerId)
  return (await organizationExists(ex, change.organizationId)) ? change.organizationId : null
}

/** Applies a first-seen event within the transaction that recorded it. */
async function applyEvent(
  deps: Deps,
  tx: Executor,
  event: StripeEvent,
  ctx: RequestContext,
  log: Logger,
): Promise<void> {
  const change = planChangeOf(deps.config.billing, event)
  if (change === null) return
  const organizationId = await organizationOf(tx, change)
  if (organizationId === null) {
    log.warn('stripe event names no organization of this instance; ignored')
    return
  }
  // The checkout's customer becomes the organization's, unless it has one (or another has this
  // one).
  if (
    change.organizationId !== undefined &&
    change.customerId !== null &&
    (await findOrganizationIdByCustomer(tx, change.customerId)) === null
  ) {
    await storeStripeCustomerId(tx, organizationId, change.customerId)
  }
  const replaced = await changePlan(
    tx,
    organizationId,
    change.plan,
    new Date(event.created * 1000).toISOString(),
  )
  if (replaced === null) {
    log.info('stripe event is older than the one that set the plan; ignored')
    return
  }
  if (replaced.from === change.plan) return
  await recordAudit(tx, deps.clock, ctx, {
    action: 'billing.plan_change',
    actor: null,
    target: { type: 'organization', id: organizationId },
    metadata: {
      from: replaced.from,
      to: change.plan,
      stripe_event_id: event.id,
      stripe_event_type: event.type,
    },
  })
}

export async function handleStripeWebhook(
  deps: Deps,
  payload: Buffer,
  signature: string,
  ctx: RequestContext,
): Promise<void> {
  const event = verified(deps, payload, signature)
  const log = deps.logger.child({ stripe_event: { id: event.id, type: event.type } })
  await deps.db.transaction().execute(async (tx) => {
    if (
      await recordBillingEvent(tx, {
        id: event.id,
        type: event.type,
        received_at: deps.clock.now().toISOString(),
      })
    ) {
      await applyEvent(deps, tx, event, ctx, log)
    } else {
      log.info('stripe event already processed')
    }
  })
}
