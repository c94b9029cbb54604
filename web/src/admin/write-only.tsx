/**
 * A write-only secret's field (SMTP password, AI key, OIDC client secret): the API never answers
 * the secret, only whether one is set, so the field starts empty and says which; typing replaces
 * it, "Remove" clears it, leaving it empty keeps it.
 */
import { useId } from 'react'
import { useI18n } from '../i18n/i18n'
import { TextField } from '../ui/form'

export function WriteOnlyField({
  name,
  label,
  clearLabel,
  isSet,
  error,
}: {
  name: string
  label: string
  clearLabel: string
  isSet: boolean
  error?: string | undefined
}) {
  const { t } = useI18n()
  const id = useId()
  return (
    <div className="write-only">
      <TextField
        name={name}
        type="password"
        label={label}
        autoComplete="new-password"
        help={
          <span data-testid={`${name}-state`}>
            {isSet ? t('admin.secret.set') : t('admin.secret.notSet')}
          </span>
        }
        error={error}
      />
      {isSet && (
        <div className="checkbox">
          <input type="checkbox" id={id} name={`${name}__clear`} />
          <label htmlFor={id}>{clearLabel}</label>
        </div>
      )}
    </div>
  )
}

/** The value to send: typed → the new secret; "Remove" → null; neither → omitted (kept). */
export function writeOnlyValue(
  values: Record<string, string>,
  name: string,
): string | null | undefined {
  if (values[`${name}__clear`] === 'on') return null
  const typed = values[name] ?? ''
  return typed === '' ? undefined : typed
}

/** Fields whose value differs from what is stored; empty text means null. */
export function changedFields<T extends Record<string, unknown>>(
  stored: T,
  next: Partial<T>,
): Partial<T> {
  const out: Partial<T> = {}
  for (const key of Object.keys(next) as (keyof T)[])
    if (next[key] !== stored[key]) out[key] = next[key]
  return out
}

export const textOrNull = (value: string | undefined): string | null => {
  const trimmed = (value ?? '').trim()
  return trimmed === '' ? null : trimmed
}
