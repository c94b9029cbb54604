/** Small pieces the organization pages share. */
import { useI18n } from '../i18n/i18n'
import type { Role } from './queries'

export function RoleName({ role }: { role: Role }) {
  const { t } = useI18n()
  return <>{t(`orgs.roleName.${role}`)}</>
}

/** "Show more" under a paged list; absent when the last page is loaded. */
export function MoreButton({
  query,
  label,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> }
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
