/** A table's header row: one column header per label, and an unlabelled-looking (but named) column for row actions. */
import { useI18n } from '../i18n/i18n'

export function TableHead({ columns, actions }: { columns: string[]; actions?: boolean }) {
  const { t } = useI18n()
  return (
    <thead>
      <tr>
        {columns.map((label) => (
          <th scope="col" key={label}>
            {label}
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
