/** The Links list's order: newest first (default) or most clicked in the last 30 days first. */
import { Link as RouterLink } from '@tanstack/react-router'
import { useI18n } from '../i18n/i18n'
import type { LinksSearch } from './queries'

export function LinksSortToggle({ search }: { search: LinksSearch }) {
  const { t } = useI18n()
  const byClicks = search.sort === 'clicks'
  return (
    <RouterLink
      to="/links"
      search={{ ...search, sort: byClicks ? undefined : 'clicks', cursor: undefined }}
      className="button button-secondary"
    >
      {byClicks ? t('golinks.sortNewest') : t('golinks.sortClicks')}
    </RouterLink>
  )
}
