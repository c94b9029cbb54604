/**
 * A date and time typed in the console's language, not the browser's: a native
 * `datetime-local` input shows the browser's locale, so a German console in an English browser
 * asked for "mm/dd/yyyy". React Aria's DateField under an I18nProvider set to the console's
 * language orders and labels its segments as that language writes dates (24-hour time in German).
 * The form still reads one named value: DateField submits "YYYY-MM-DDTHH:mm:ss" in the browser's
 * time zone through a hidden input of that name, as the native input did.
 */
import { parseDateTime } from '@internationalized/date'
import {
  DateField,
  DateInput,
  DateSegment,
  FieldError,
  I18nProvider,
  Label,
} from 'react-aria-components'
import { useI18n } from '../i18n/i18n'

/**
 * An ISO instant as a local date and time ("2026-05-02T10:00"), in the browser's time zone; '' when
 * absent or invalid.
 */
export function toLocalDateTime(iso: string | undefined): string {
  if (iso === undefined) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

/**
 * A local date and time as the field submits it, back to an ISO instant; undefined when empty or
 * incomplete.
 */
export function fromLocalDateTime(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/**
 * Focuses a date field of a form (as ui/form.tsx focusField does other fields): its named input is
 * hidden, so the first segment takes the focus. Kept here, not in focusField: the sign-in page
 * loads form.tsx and has a size budget.
 */
export function focusDateTimeField(form: HTMLFormElement | null, name: string): void {
  form
    ?.querySelector<HTMLElement>(`[data-field="${CSS.escape(name)}"] [role="spinbutton"]`)
    ?.focus()
}

export function DateTimeField({
  name,
  label,
  defaultValue,
  error,
}: {
  name: string
  label: string
  defaultValue?: string | undefined
  error?: string | undefined
}) {
  const { language } = useI18n()
  const local = toLocalDateTime(defaultValue)
  return (
    <I18nProvider locale={language}>
      <DateField
        name={name}
        granularity="minute"
        // "02.05.2026", as the console's own dates are written in German (i18n.tsx dateTime).
        shouldForceLeadingZeros
        defaultValue={local === '' ? null : parseDateTime(local)}
        isInvalid={error !== undefined}
        className="field date-time-field"
        data-field={name}
      >
        <Label className="date-time-label">{label}</Label>
        <DateInput className="date-time-input">
          {(segment) => <DateSegment segment={segment} className="date-time-segment" />}
        </DateInput>
        <FieldError className="field-error">{error}</FieldError>
      </DateField>
    </I18nProvider>
  )
}
