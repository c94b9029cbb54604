/** Small pieces the organization pages share. */
import { useQuery } from '@tanstack/react-query'
import { useI18n } from '../i18n/i18n'
import { plansQuery, type Role } from './queries'

export function RoleName({ role }: { role: Role }) {
  const { t } = useI18n()
  return <>{t(`orgs.roleName.${role}`)}</>
}

/**
 * A plan's name: `free` in the person's language, a paid plan by its name in GET
 * /api/billing/plans.
 */
export function usePlanName(): (id: string) => string {
  const { t } = useI18n()
  const plans = useQuery(plansQuery)
  return (id) =>
    id === 'free'
      ? t('orgs.billing.free')
      : (plans.data?.items.find((plan) => plan.id === id)?.name ?? id)
}

/** "Show more" under a paged list; absent when the last page is loaded. */
export function MoreButton({
  query,
  label,
}: {
  query: {
    hasNextPage: boolean
    isFetchingNextPage: boolean
    fetchNextPage: () => Promise<unknown>
  }
  label: string
}) {
  const { t } = useI18n()
  if (!query.hasNextPage) return null
  return (
    <button
      type="button"
      className="button button-secondary button-more"
      aria-busy={query.isFetchingNextPage || undefined}
      onClick={() => void query.fetchNextPage()}
    >
      {label}
      {query.isFetchingNextPage && <span className="visually-hidden"> {t('common.working')}</span>}
    </button>
  )
}
