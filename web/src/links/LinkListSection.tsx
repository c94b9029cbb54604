/**
 * The one list of the Links area's side pages (go-link preferences, recently deleted): a section
 * with its heading, then either an empty state leading back to Links or a table whose rows the page
 * draws, each naming its link by title and address (LinkCell).
 */
import { Link as RouterLink } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { useI18n } from '../i18n/i18n'
import { TableHead } from '../ui/table-head'

export function LinkListSection({
  id,
  heading,
  empty,
  emptyText,
  testId,
  columns,
  children,
}: {
  /** The heading's id, naming the section. */
  id: string
  heading: string
  /** True once the list has loaded and has no item: the empty state instead of the table. */
  empty: boolean
  emptyText: string
  testId: string
  /** The column names; a last, visually hidden "Actions" column follows. */
  columns: string[]
  /** The table's rows. */
  children: ReactNode
}) {
  const { t } = useI18n()
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      {empty ? (
        <div className="empty-state">
          <p>{emptyText}</p>
          <RouterLink to="/links">{t('links.backToLinks')}</RouterLink>
        </div>
      ) : (
        <table className="table" data-testid={testId}>
          <TableHead columns={columns} actions />
          <tbody>{children}</tbody>
        </table>
      )}
    </section>
  )
}

/** A link's cell: its title (the address when it has none) above its address. */
export function LinkCell({ title, url }: { title: string | null; url: string }) {
  return (
    <td className="link-cell">
      <span className="link-title">{title ?? url}</span>
      <span className="link-url">{url}</span>
    </td>
  )
}
