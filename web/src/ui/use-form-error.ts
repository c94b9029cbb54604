/**
 * A form's error state, as every form shows it: the API's envelope turned into a sentence at the
 * field it names (or above the form), and focus moved to the first field in error as the page
 * shows them. A field left empty says it is missing, whatever rule the API names (an empty address
 * also breaks its minimum length, but "enter at least 3 characters" misleads).
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
      const all = shown.fields
      let first: string | null = null
      for (const input of [...(form.current?.elements ?? [])] as HTMLInputElement[]) {
        if (all[input.name] === undefined) continue
        // A file input's own message ("Choose a file…") says more than "Fill in this field".
        const blank =
          input.type !== 'checkbox' && input.type !== 'file' && input.value.trim() === ''
        if (blank) all[input.name] = i18n.t('validation.required')
        first ??= input.name
      }
      first ??= shown.field
      setError({ ...shown, field: first, text: (first !== null && all[first]) || shown.text })
      queueMicrotask(() => focusField(form.current, first))
    },
    // Every invalid field at once, not only the first.
    at: (field: string) => error?.fields[field],
    general: error?.field === null ? error.text : null,
  }
}
