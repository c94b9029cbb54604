/** The plans of BILLING_PLANS as the API offers them (docs/API.md#billing). */
import { BILLING_INTERVALS, type BillingConfig, type BillingPlan } from '../../config.js'
import type { Deps } from '../../deps.js'
import {
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Page,
  type PageQuery,
} from '../../lib/pagination.js'
import type { PlanView } from './schemas.js'

/** Plans can be bought only with a Stripe key: without one, none is offered. */
export function purchasablePlans(deps: Deps): readonly BillingPlan[] {
  return deps.stripe === null ? [] : deps.config.billing.plans
}

/** The plan a Stripe price belongs to (prices are unique across plans, checked at start-up). */
export function planOfPrice(billing: BillingConfig, priceId: string): BillingPlan | null {
  return billing.plans.find((plan) => Object.values(plan.prices).includes(priceId)) ?? null
}

/** In the order of BILLING_PLANS — the operator's order; the cursor names the last plan shown. */
export function listPlans(deps: Deps, query: PageQuery): Page<PlanView> {
  const plans = purchasablePlans(deps)
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const after = decodeCursor(query.cursor)?.[0]
  const index = after === undefined ? -1 : plans.findIndex((plan) => plan.id === after)
  // A cursor naming no plan (the configuration changed between pages) ends the list.
  const start = after === undefined ? 0 : index === -1 ? plans.length : index + 1
  return toPage(
    plans.slice(start, start + limit + 1),
    limit,
    (plan) => ({
      id: plan.id,
      name: plan.name,
      intervals: BILLING_INTERVALS.filter((interval) => plan.prices[interval] !== undefined),
    }),
    (plan) => [plan.id, ''],
  )
}
