/**
 * The mailed (or handed-over) reset link: reads its token once and keeps it out of the address bar,
 * asks the service what the link is for, then sets the new password. A used or expired link gets a
 * page that says so and how to get a new one; an account of an identity provider is told to sign in
 * there. Afterwards the page says what happened: sessions ended, API tokens revoked or kept, and
 * that the second factor is still needed.
 */
import { useMutation, useQuery } from '@tanstack/react-query'
import { Link, useSearch } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { AuthFrame } from '../auth/AuthFrame'
import { useI18n } from '../i18n/i18n'
import { NewPasswordField } from '../ui/PasswordStrength'
import { describeError } from '../ui/describe-error'
import { FormError, SubmitButton, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'

type Outcome = {
  sessions_revoked: number
  api_tokens_revoked: number
  api_tokens_kept: number
  second_factor: boolean
}

/** The token from the query string, read once: the address bar (and history) lose it at once. */
function useLinkToken(): string | null {
  const { token } = useSearch({ from: '/reset-password' })
  const [kept] = useState<string | null>(() => {
    if (token !== undefined)
      window.history.replaceState(window.history.state, '', window.location.pathname)
    return token ?? null
  })
  return kept
}

export function ResetPasswordPage() {
  const i18n = useI18n()
  const { t } = i18n
  const token = useLinkToken()
  const link = useQuery({
    queryKey: ['password-reset', 'link'],
    queryFn: () =>
      unwrap(client.POST('/api/auth/password-reset/inspect', { body: { token: token ?? '' } })),
    enabled: token !== null,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  })
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [spent, setSpent] = useState(false)

  const invalid =
    token === null ||
    spent ||
    (link.error instanceof ApiError && link.error.reason === 'RESET_LINK_INVALID')
  return (
    <AuthFrame>
      <Page
        title={
          outcome !== null
            ? t('reset.doneTitle')
            : invalid
              ? t('reset.invalidTitle')
              : link.data?.welcome === true
                ? t('reset.welcomeTitle')
                : t('reset.title')
        }
      >
        {outcome !== null ? (
          <ResetDone outcome={outcome} />
        ) : invalid ? (
          <div className="state state-weak state-stack" data-testid="reset-invalid">
            <p>
              <strong>{t('reset.invalid')}</strong>
            </p>
            <p>{t('reset.invalidNext')}</p>
            <p>
              <Link to="/forgot-password">{t('reset.askAgain')}</Link>
            </p>
          </div>
        ) : link.isPending ? (
          <p role="status">{t('reset.checking')}</p>
        ) : link.error ? (
          <FormError>{describeError(link.error, [], i18n).text}</FormError>
        ) : link.data.provider_only ? (
          <div className="state state-weak state-stack" data-testid="reset-provider">
            <p>
              <strong>{t('reset.provider', { provider: link.data.provider_name ?? '' })}</strong>
            </p>
            <p>
              <Link to="/login">
                {t('login.withProvider', { name: link.data.provider_name ?? '' })}
              </Link>
            </p>
          </div>
        ) : (
          <ResetForm
            token={token}
            view={link.data}
            onDone={setOutcome}
            onSpent={() => setSpent(true)}
          />
        )}
        {outcome === null && (
          <p className="auth-footer">
            <Link to="/login">{t('forgot.back')}</Link>
          </p>
        )}
      </Page>
    </AuthFrame>
  )
}

function ResetForm({
  token,
  view,
  onDone,
  onSpent,
}: {
  token: string
  view: { email: string; welcome: boolean; second_factor: boolean; api_tokens: number }
  onDone: (outcome: Outcome) => void
  onSpent: () => void
}) {
  const { t } = useI18n()
  const state = useFormError(['new_password'])
  const revokeId = useId()
  const reset = useMutation({
    mutationFn: (body: { new_password: string; revoke_api_tokens: boolean }) =>
      unwrap(client.POST('/api/auth/password-reset/complete', { body: { token, ...body } })),
    onSuccess: onDone,
    onError: (error) =>
      error instanceof ApiError && error.reason === 'RESET_LINK_INVALID'
        ? onSpent()
        : state.fail(error),
  })
  return (
    <form
      ref={state.form}
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        const values = formValues(event.currentTarget)
        reset.mutate({
          new_password: values.new_password ?? '',
          revoke_api_tokens: values.revoke_api_tokens === 'on',
        })
      }}
    >
      <p>
        {view.welcome
          ? t('reset.welcomeFor', { email: view.email })
          : t('reset.for', { email: view.email })}
      </p>
      {/* For password managers: the account the new password belongs to. */}
      <input
        type="email"
        name="username"
        autoComplete="username"
        value={view.email}
        readOnly
        hidden
      />
      <FormError>{state.general}</FormError>
      <NewPasswordField
        name="new_password"
        label={t('field.newPassword')}
        email={view.email}
        error={state.at('new_password')}
      />
      <p className="field-help">
        {view.second_factor ? t('reset.signOutMfa') : t('reset.signOut')}
      </p>
      {view.api_tokens > 0 && (
        <div className="field">
          <div className="checkbox">
            <input
              type="checkbox"
              id={revokeId}
              name="revoke_api_tokens"
              aria-describedby={`${revokeId}-help`}
            />
            <label htmlFor={revokeId}>{t('reset.revokeTokens', { count: view.api_tokens })}</label>
          </div>
          <p id={`${revokeId}-help`} className="field-help">
            {t('reset.revokeTokensHelp')}
          </p>
        </div>
      )}
      <SubmitButton pending={reset.isPending}>{t('reset.submit')}</SubmitButton>
    </form>
  )
}

function ResetDone({ outcome }: { outcome: Outcome }) {
  const { t } = useI18n()
  return (
    <div className="state state-good state-stack" role="status" data-testid="reset-done">
      <p>
        <strong>{t('reset.done')}</strong>
      </p>
      <p>{t('reset.sessionsEnded', { count: outcome.sessions_revoked })}</p>
      {outcome.api_tokens_revoked > 0 && (
        <p>{t('reset.tokensRevoked', { count: outcome.api_tokens_revoked })}</p>
      )}
      {outcome.api_tokens_kept > 0 && (
        <p>{t('reset.tokensKept', { count: outcome.api_tokens_kept })}</p>
      )}
      {outcome.second_factor && <p>{t('reset.mfaKept')}</p>}
      <p>
        <Link to="/login" className="button button-primary">
          {t('reset.signIn')}
        </Link>
      </p>
    </div>
  )
}
