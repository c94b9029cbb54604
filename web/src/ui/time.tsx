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

/**
 * A day in the language shown: a calendar day (`2026-11-27`, as the API names days) as such, a
 * moment as the day it falls on here.
 */
export function useDay(): (value: string) => string {
  const { language } = useI18n()
  return (value) =>
    /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(
          new Date(`${value}T00:00:00Z`),
        )
      : new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(new Date(value))
}
