import { useI18n } from '../i18n/i18n'

/** A table's header row: the column names, and a last, visually hidden "Actions" column when asked. */
export function TableHead({ columns, actions }: { columns: string[]; actions?: boolean }) {
  const { t } = useI18n()
  return (
    <thead>
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
