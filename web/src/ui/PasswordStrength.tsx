/**
 * A new-password field with its strength meter: label, input, the rules as help, a bar with the
 * word next to it (never colour alone), then the service's error. The meter is tied to the input
 * through aria-describedby, so it is read with the field, not announced at every keystroke.
 */
import { useId, useState, type InputHTMLAttributes } from 'react'
import { useI18n } from '../i18n/i18n'
import { estimateStrength } from './password-strength'

const LEVELS = ['tooShort', 'weak', 'fair', 'strong', 'veryStrong'] as const

export function PasswordStrength({
  id,
  password,
  email,
}: {
  id: string
  password: string
  email?: string | null
}) {
  const { t } = useI18n()
  const score = estimateStrength(password, email)
  return (
    <div
      id={id}
      className="strength"
      data-testid="password-strength"
      data-score={password === '' ? '' : score}
    >
      {password !== '' && (
        <>
          <meter
            min={0}
            max={4}
            low={2}
            high={3}
            optimum={4}
            value={score}
            aria-label={t('strength.label')}
          />
          <span>
            {t('strength.label')}: <strong>{t(`strength.${LEVELS[score]}`)}</strong>
          </span>
        </>
      )}
    </div>
  )
}

interface NewPasswordFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  name: string
  label: string
  error?: string | undefined
  /** The account's email: a password equal to it is shown as too weak (the service refuses it). */
  email?: string | null
}

export function NewPasswordField({
  label,
  error,
  email,
  onChange,
  ...input
}: NewPasswordFieldProps) {
  const { t } = useI18n()
  const id = useId()
  const [value, setValue] = useState('')
  const describedBy = [`${id}-help`, `${id}-strength`, error ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ')
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(event) => {
          setValue(event.target.value)
          onChange?.(event)
        }}
        {...input}
      />
      <p id={`${id}-help`} className="field-help">
        {t('field.newPassword.help')}
      </p>
      <PasswordStrength id={`${id}-strength`} password={value} email={email} />
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}
