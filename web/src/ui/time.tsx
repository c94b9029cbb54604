import { useI18n } from '../i18n/i18n'

/** "3 minutes ago", with the exact date and time on hover and for assistive technology. */
export function RelativeTime({ iso }: { iso: string }) {
  const { relative, dateTime } = useI18n()
  const exact = dateTime(iso)
  return (
    <time dateTime={iso} title={exact}>
      {relative(iso)}
    </time>
  )
}
