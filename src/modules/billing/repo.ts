/** SQL for billing: an organization's Stripe customer and plan, and the Stripe events processed. */
import type { Executor, Timestamp } from '../../db/schema.js'

export async function findStripeCustomerId(
  ex: Executor,
  organizationId: string,
): Promise<string | null> {
  const row = await ex
    .selectFrom('organizations')
    .select('stripe_customer_id')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row?.stripe_customer_id ?? null
}

/** Stores the customer only while the organization has none: the first one stored stays. */
export async function storeStripeCustomerId(
  ex: Executor,
  organizationId: string,
  customerId: string,
): Promise<boolean> {
  const result = await ex
    .updateTable('organizations')
    .set({ stripe_customer_id: customerId })
    .where('id', '=', organizationId)
    .where('stripe_customer_id', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function findOrganizationIdByCustomer(
  ex: Executor,
  customerId: string,
): Promise<string | null> {
  const row = await ex
    .selectFrom('organizations')
    .select('id')
    .where('stripe_customer_id', '=', customerId)
    .executeTakeFirst()
  return row?.id ?? null
}

export async function organizationExists(ex: Executor, organizationId: string): Promise<boolean> {
  return (
    (await ex
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', organizationId)
      .executeTakeFirst()) !== undefined
  )
}

/** Records the event as processed; false when it was already (a redelivery). */
export async function recordBillingEvent(
  ex: Executor,
  event: { id: string; type: string; received_at: Timestamp },
): Promise<boolean> {
  const result = await ex
    .insertInto('billing_events')
    .values(event)
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst()
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}

/**
 * Sets the plan unless a newer event already set it (Stripe delivers out of order). The row is
 * locked, so concurrent events for one organization apply one after the other. Returns the plan it
 * replaced, or null when nothing changed hands (unknown organization, or an older event).
 */
export async function changePlan(
  ex: Executor,
  organizationId: string,
  plan: string,
  eventAt: Timestamp,
): Promise<{ from: string } | null> {
  const current = await ex
    .selectFrom('organizations')
    .select(['plan', 'plan_event_at'])
    .where('id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst()
  if (current === undefined || (current.plan_event_at !== null && current.plan_event_at > eventAt))
    return null
  await ex
    .updateTable('organizations')
    .set({ plan, plan_event_at: eventAt })
    .where('id', '=', organizationId)
    .execute()
  return { from: current.plan }
}
