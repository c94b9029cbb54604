import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { useEffect, useRef, useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, focusField, formValues } from '../ui/form'
import { describeError } from '../ui/describe-error'
import { Page } from '../ui/page'
import { PasskeySecondFactor } from '../passkeys/PasskeySignIn'
import { AuthFrame } from './AuthFrame'
import { useAction } from './requests'
import {
  finishSignIn,
  noteBackupCodeUsed,
  setPendingMfaToken,
  takePendingMfaToken,
} from './sign-in'

/**
 * The mfa_token from an OIDC callback's fragment (#mfa_token=…&expires_at=…), read once and then
 * removed from the address bar so it stays out of history, bookmarks and screenshots.
 */
function tokenFromFragment(): string | null {
  const fragment = new URLSearchParams(window.location.hash.replace(/^#/, ''))
  const token = fragment.get('mfa_token')
  if (token !== null) {
    window.history.replaceState(
      window.history.state,
      '',
      window.location.pathname + window.location.search,
    )
    setPendingMfaToken(token)
  }
  return token
}

export function MfaPage() {
  const i18n = useI18n()
  const { t } = i18n
  const search = useSearch({ from: '/login/mfa' })
  const navigate = useNavigate()
  const [mfaToken] = useState(() => tokenFromFragment() ?? takePendingMfaToken())
  const form = useRef<HTMLFormElement>(null)
  const [error, setError] = useState<{
    field: string | null
    text: string
    expired: boolean
  } | null>(null)

  const verify = useAction(
    (code: string) =>
      unwrap(client.POST('/api/auth/mfa/verify', { body: { mfa_token: mfaToken ?? '', code } })),
    {
      onSuccess: (data, code) => {
        // Not a 6-digit app code: a backup code was spent, and the next page says how many are
        // left.
        if (!/^[0-9]{6}$/.test(code)) noteBackupCodeUsed()
        finishSignIn(data.user, search.return_to, (to) => void navigate({ to }))
      },
      onError: (failure) => {
        const shown = describeError(failure, ['code'], i18n)
        const expired = shown.reason === 'MFA_PENDING_INVALID'
        setError({ field: expired ? null : shown.field, text: shown.text, expired })
        queueMicrotask(() => focusField(form.current, expired ? null : shown.field))
      },
    },
  )

  // The code field takes the focus: this runs after the page has focused its heading.
  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input[name="code"]')?.focus()
  }, [])

  const signInAgain = (
    <Link to="/login" search={{ return_to: search.return_to }}>
      {t('mfa.signInAgain')}
    </Link>
  )

  return (
    <AuthFrame>
      <Page title={t('mfa.title')} description={t('mfa.description')}>
        {mfaToken === null ? (
          <FormError>
            {t('mfa.noPending')} {signInAgain}
          </FormError>
        ) : (
          <form
            ref={form}
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              setError(null)
              verify.mutate((formValues(event.currentTarget).code ?? '').replace(/\s+/g, ''))
            }}
          >
            <FormError>
              {error?.field === null ? (
                <>
                  {error.text} {error.expired && signInAgain}
                </>
              ) : null}
            </FormError>
            <TextField
              name="code"
              label={t('mfa.code')}
              help={t('mfa.code.help')}
              autoComplete="one-time-code"
              inputMode="text"
              autoCapitalize="off"
              spellCheck={false}
              className="field-code"
              required
              error={error?.field === 'code' ? error.text : undefined}
            />
            <SubmitButton pending={verify.isPending}>{t('mfa.submit')}</SubmitButton>
          </form>
        )}
        {mfaToken !== null && (
          <PasskeySecondFactor mfaToken={mfaToken} returnTo={search.return_to} />
        )}
        {mfaToken !== null && (
          <p className="auth-footer">
            {/* The waiting sign-in is dropped: another address and password start afresh. */}
            <Link
              to="/login"
              search={{ return_to: search.return_to }}
              onClick={() => setPendingMfaToken(null)}
            >
              {t('mfa.otherAccount')}
            </Link>
          </p>
        )}
      </Page>
    </AuthFrame>
  )
}
