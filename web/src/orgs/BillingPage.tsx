/**
 * /orgs/$org/billing (owners): the current plan, the plans on sale, and Stripe Checkout. The
 * checkout returns here with ?checkout=success&plan=… or ?checkout=cancelled. The plan itself
 * changes when Stripe's webhook arrives, which may be a moment after the payer is back: until the
 * organization shows the plan paid for, the page asks again every few seconds, for a minute.
 */
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { describeError } from '../ui/describe-error'
import { FormError } from '../ui/form'
import { Page } from '../ui/page'
import { usePlanName } from './parts'
import { can, organizationQuery, plansQuery } from './queries'

const route = getRouteApi('/shell/orgs/$org/billing')
const CONFIRMATION_WAIT_MS = 60_000
const CONFIRMATION_POLL_MS = 2_000

type Interval = 'month' | 'year'

export function BillingPage() {
  const i18n = useI18n()
  const { t } = i18n
  const { id: orgId } = route.useLoaderData()
  const { checkout, plan: paidPlan } = route.useSearch()
  const { data: initial } = useSuspenseQuery(organizationQuery(orgId))
  const waiting = checkout === 'success' && paidPlan !== undefined
  const [deadline] = useState(() => Date.now() + CONFIRMATION_WAIT_MS)
  const organization = useQuery({
    ...organizationQuery(orgId),
    initialData: initial,
    refetchInterval: (query) =>
      waiting && query.state.data?.plan !== paidPlan && Date.now() < deadline
        ? CONFIRMATION_POLL_MS
        : false,
  }).data
  const plans = useQuery(plansQuery)
  const start = useMutation({
    mutationFn: ({ plan, interval }: { plan: string; interval: Interval }) => {
      const here = `${window.location.origin}/orgs/${encodeURIComponent(organization.slug)}/billing`
      return unwrap(
        client.POST('/api/billing/checkout-session', {
          body: {
            organization_id: orgId,
            plan,
            interval,
            success_url: `${here}?checkout=success&plan=${encodeURIComponent(plan)}`,
            cancel_url: `${here}?checkout=cancelled`,
          },
        }),
      )
    },
    // Stripe's hosted page: the payer leaves the console and comes back to the URLs above.
    onSuccess: (session) => window.location.assign(session.url),
  })
  const [, rerender] = useState(0)
  useEffect(() => {
    // Re-render once the wait is over, so "still waiting" turns into "not confirmed yet".
    if (!waiting) return
    const timer = window.setTimeout(
      () => rerender((n) => n + 1),
      Math.max(0, deadline - Date.now()) + 100,
    )
    return () => window.clearTimeout(timer)
  }, [waiting, deadline])

  const planName = usePlanName()
  const items = plans.data?.items ?? []
  const startError =
    start.error instanceof ApiError && start.error.reason === 'NOT_CONFIGURED'
      ? t('orgs.billing.notConfigured')
      : start.error !== null
        ? describeError(start.error, [], i18n).text
        : null

  if (!can(organization.role, 'billing')) {
    return (
      <Page
        title={t('orgs.billing.title', { name: organization.name })}
        description={t('orgs.billing.ownersOnly')}
      >
        <Link
          to="/orgs/$org"
          params={{ org: organization.slug }}
          className="button button-secondary"
        >
          {t('orgs.billing.backToOrg')}
        </Link>
      </Page>
    )
  }

  return (
    <Page
      title={t('orgs.billing.title', { name: organization.name })}
      description={t('orgs.billing.description')}
    >
      <p className="breadcrumb">
        <Link to="/orgs/$org" params={{ org: organization.slug }}>
          {t('orgs.billing.backToOrg')}
        </Link>
      </p>
      {checkout === 'success' && (
        <div role="status" data-testid="checkout-result">
          {paidPlan !== undefined && organization.plan === paidPlan ? (
            <p className="state state-good">
              <strong>{t('orgs.billing.success', { plan: planName(paidPlan) })}</strong>
            </p>
          ) : Date.now() < deadline ? (
            <p className="state">{t('orgs.billing.confirming')}</p>
          ) : (
            <p className="state state-weak">
              <strong>{t('orgs.billing.notConfirmed')}</strong>
            </p>
          )}
        </div>
      )}
      {checkout === 'cancelled' && (
        <p className="state" role="status" data-testid="checkout-result">
          {t('orgs.billing.cancelled')}
        </p>
      )}
      <section className="section" aria-labelledby="billing-current-heading">
        <h2 id="billing-current-heading">{t('orgs.billing.current')}</h2>
        <p className="plan-current" data-testid="current-plan">
          {planName(organization.plan)}
        </p>
      </section>
      <section className="section" aria-labelledby="billing-plans-heading">
        <h2 id="billing-plans-heading">{t('orgs.billing.plans')}</h2>
        <p className="muted">{t('orgs.billing.stripe')}</p>
        <FormError>{startError}</FormError>
        {plans.isPending ? (
          <p className="skeleton" aria-hidden="true" />
        ) : items.length === 0 ? (
          <p className="empty">{t('orgs.billing.none')}</p>
        ) : (
          <ul className="cards">
            {items.map((plan) => (
              <li key={plan.id} className="card plan-card">
                <h3>
                  {plan.name}
                  {plan.id === organization.plan && (
                    <span className="badge">{t('orgs.billing.currentBadge')}</span>
                  )}
                </h3>
                <div className="row">
                  {plan.intervals.map((interval) => (
                    <button
                      key={interval}
                      type="button"
                      className={
                        interval === 'month' ? 'button button-primary' : 'button button-secondary'
                      }
                      aria-label={t(`orgs.billing.subscribeTo.${interval}`, { plan: plan.name })}
                      aria-busy={
                        (start.isPending &&
                          start.variables.plan === plan.id &&
                          start.variables.interval === interval) ||
                        undefined
                      }
                      onClick={() => !start.isPending && start.mutate({ plan: plan.id, interval })}
                    >
                      {t(`orgs.billing.subscribe.${interval}`)}
                    </button>
                  ))}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  )
}
