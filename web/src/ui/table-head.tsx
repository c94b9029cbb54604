import { useEffect, useRef } from 'react'
import { useI18n } from '../i18n/i18n'

/**
 * Below 720 px tables become stacked rows (stacked-table.css), each cell named by its column.
 * The names are copied from the header onto every body cell as `data-label`, also for rows that
 * arrive later, so no page has to repeat them.
 */
function useCellLabels(columns: string[]) {
  const head = useRef<HTMLTableSectionElement>(null)
  const key = columns.join('\n')
  useEffect(() => {
    const table = head.current?.closest('table')
    if (!table) return
    const names = key.split('\n')
    const label = () => {
      for (const body of table.tBodies)
        for (const row of body.rows)
          for (const [index, cell] of [...row.cells].entries()) {
            const name = names[index]
            if (name !== undefined && cell.getAttribute('data-label') !== name)
              cell.setAttribute('data-label', name)
          }
    }
    label()
    // Only rows and cells coming and going are watched: setting an attribute does not trigger it
    // again.
    const observer = new MutationObserver(label)
    observer.observe(table, { childList: true, subtree: true })
    return () => observer.disconnect()
  }, [key])
  return head
}

/**
 * A table's header row: the column names, and a last, visually hidden "Actions" column when asked.
 */
export function TableHead({ columns, actions }: { columns: string[]; actions?: boolean }) {
  const { t } = useI18n()
  const head = useCellLabels(columns)
  return (
    <thead ref={head}>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        )}
      </tr>
    </thead>
  )
}
