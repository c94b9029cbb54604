/**
 * Form pieces: a field with its label above, help below and its error below that — tied to the
 * input with aria-describedby — a form-level error, and a submit button that shows progress.
 */
import {
  useId,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react'
import { useI18n } from '../i18n/i18n'

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string
  label: string
  help?: ReactNode
  error?: string | undefined
}

export function TextField({ label, help, error, className, ...input }: FieldProps) {
  const id = useId()
  const helpId = `${id}-help`
  const errorId = `${id}-error`
  const describedBy = [help !== undefined ? helpId : null, error ? errorId : null]
    .filter(Boolean)
    .join(' ')
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {/* Names and titles may be in any script: the browser picks their direction. */}
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        dir={input.name === 'name' || input.name === 'title' ? 'auto' : undefined}
        {...input}
      />
      {help !== undefined && (
        <p id={helpId} className="field-help">
          {help}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}

/**
 * A password to type, with "Show password" beside it: pressed, the field shows what was typed (for
 * a phone's keyboard, a long passphrase); the field keeps its name for password managers.
 */
export function PasswordField({ label, error, ...input }: Omit<FieldProps, 'type' | 'help'>) {
  const { t } = useI18n()
  const id = useId()
  const errorId = `${id}-error`
  const [shown, setShown] = useState(false)
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="password-row">
        <input
          id={id}
          type={shown ? 'text' : 'password'}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          autoCapitalize="off"
          spellCheck={false}
          {...input}
        />
        <button
          type="button"
          className="button button-secondary password-toggle"
          aria-controls={id}
          aria-pressed={shown}
          onClick={() => setShown(!shown)}
        >
          {t('field.showPassword')}
        </button>
      </div>
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}

interface SelectProps extends SelectHTMLAttributes<HTMLSelectElement> {
  name: string
  label: string
  options: { value: string; label: string }[]
  error?: string | undefined
}

export function SelectField({ label, options, error, ...select }: SelectProps) {
  const id = useId()
  const errorId = `${id}-error`
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...select}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}

export function FormError({ children }: { children: ReactNode }) {
  if (children === null || children === undefined || children === '') return null
  return (
    <div className="form-error" role="alert">
      {children}
    </div>
  )
}

export function SubmitButton({
  pending,
  children,
  variant,
}: {
  pending: boolean
  children: ReactNode
  variant?: 'primary' | 'danger'
}) {
  const { t } = useI18n()
  return (
    <button
      type="submit"
      className={`button button-${variant ?? 'primary'}`}
      aria-busy={pending || undefined}
      onClick={(event) => pending && event.preventDefault()}
    >
      {children}
      {pending && <span className="visually-hidden"> {t('common.working')}</span>}
      {pending && <span className="spinner" aria-hidden="true" />}
    </button>
  )
}

/** Focuses the named field of a form (the first one in error after a failed submit). */
export function focusField(form: HTMLFormElement | null, name: string | null): void {
  if (form === null) return
  const target =
    name !== null ? form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`) : null
  ;(target ?? form.querySelector<HTMLElement>('[role="alert"]'))?.focus()
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of new FormData(form)) if (typeof value === 'string') out[key] = value
  return out
}
