/**
 * Keyset paging from the API's cursors: the cursor lives in the query string (Back returns to the
 * previous page, a reload keeps the page), "Next page" follows `next_cursor`, "First page" drops
 * it.
 */
import { Link } from '@tanstack/react-router'
import { useI18n } from '../i18n/i18n'

type Search = Record<string, unknown>

export function Pager({
  cursor,
  nextCursor,
  label,
}: {
  cursor: string | undefined
  nextCursor: string | null | undefined
  label: string
}) {
  const { t } = useI18n()
  if (cursor === undefined && (nextCursor === null || nextCursor === undefined)) return null
  const withCursor = (value: string | undefined) =>
    ((prev: Search) => ({ ...prev, cursor: value })) as never
  return (
    <nav className="pager" aria-label={label}>
      {cursor !== undefined && (
        <Link
          to="."
          search={withCursor(undefined)}
          className="button button-secondary button-small"
        >
          {t('admin.pager.first')}
        </Link>
      )}
      {nextCursor !== null && nextCursor !== undefined && (
        <Link
          to="."
          search={withCursor(nextCursor)}
          className="button button-secondary button-small"
        >
          {t('admin.pager.next')}
        </Link>
      )}
    </nav>
  )
}
