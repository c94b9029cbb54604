/**
 * A form's error state, as every form shows it: the API's envelope turned into a sentence at the
 * field it names (or above the form), and focus moved to that field.
 */
import { useRef, useState } from 'react'
import { useI18n } from '../i18n/i18n'
import { describeError, type ShownError } from './describe-error'
import { focusField } from './form'

export function useFormError(fields: readonly string[]) {
  const i18n = useI18n()
  const form = useRef<HTMLFormElement>(null)
  const [error, setError] = useState<ShownError | null>(null)
  return {
    form,
    error,
    clear: () => setError(null),
    fail: (failure: unknown) => {
      const shown = describeError(failure, fields, i18n)
      setError(shown)
      queueMicrotask(() => focusField(form.current, shown.field))
    },
    // Every invalid field at once, not only the first.
    at: (field: string) => error?.fields[field],
    general: error?.field === null ? error.text : null,
  }
}
