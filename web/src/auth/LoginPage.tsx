import { Link, Navigate, useNavigate, useSearch } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { lazy, Suspense } from 'react'
import { loadAreas, useI18n } from '../i18n/i18n'
import { FormError, PasswordField, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { AuthFrame } from './AuthFrame'
import { rememberReturnTo, safeReturnTo } from './return-to'
import { useAction, useLoad } from './requests'
import { finishSignIn, setPendingMfaToken } from './sign-in'

const FIELDS = ['email', 'password'] as const

// The passkey button and its words load after the form (the sign-in page's size budget);
// it appears once the browser has said it supports passkeys, which is asynchronous anyway.
const PasskeySignIn = lazy(() =>
  Promise.all([import('../passkeys/PasskeySignIn'), loadAreas(['passkeys'])]).then(([module]) => ({
    default: module.PasskeySignIn,
  })),
)

export const OIDC_ERRORS = [
  'PROVIDER_NOT_FOUND',
  'INVALID_STATE',
  'ACCESS_DENIED',
  'PROVIDER_ERROR',
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_DISABLED',
  'EMAIL_NOT_VERIFIED',
  'EMAIL_IN_USE',
  'LINK_REQUIRED',
]

export function LoginPage() {
  const { t } = useI18n()
  const search = useSearch({ from: '/login' })
  const navigate = useNavigate()
  const setup = useLoad(() => unwrap(client.GET('/api/auth/setup')))
  // Without its answer the page offers no provider (and shows the passkey section all the same).
  const providers = useLoad(() =>
    unwrap(client.GET('/api/auth/providers', { params: { query: { limit: 100 } } })).catch(() => ({
      items: [],
    })),
  )
  const formError = useFormError(FIELDS)
  const returnTo = safeReturnTo(search.return_to) ?? undefined

  const login = useAction(
    (body: { email: string; password: string }) => unwrap(client.POST('/api/auth/login', { body })),
    {
      onSuccess: (data) => {
        if ('mfa_required' in data) {
          setPendingMfaToken(data.mfa_token)
          void navigate({ to: '/login/mfa', search: { return_to: returnTo } })
        } else {
          finishSignIn(data.user, returnTo, (to) => void navigate({ to }))
        }
      },
      onError: formError.fail,
    },
  )

  if (setup?.initialized === false) return <Navigate to="/setup" />

  const oidcError =
    search.error !== undefined
      ? OIDC_ERRORS.includes(search.error)
        ? t(`oidcError.${search.error}`)
        : t('oidcError.UNKNOWN')
      : null
  const providerList = providers?.items ?? []

  return (
    <AuthFrame>
      <Page title={t('login.title')} description={t('login.description')}>
        {oidcError !== null && <FormError>{oidcError}</FormError>}
        <form
          ref={formError.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            const values = formValues(event.currentTarget)
            formError.clear()
            login.mutate({ email: values.email ?? '', password: values.password ?? '' })
          }}
        >
          <FormError>{formError.general}</FormError>
          <TextField
            name="email"
            type="email"
            label={t('field.email')}
            autoComplete="username webauthn"
            required
            error={formError.at('email')}
          />
          <PasswordField
            name="password"
            label={t('field.password')}
            autoComplete="current-password"
            required
            error={formError.at('password')}
          />
          <SubmitButton pending={login.isPending}>{t('login.submit')}</SubmitButton>
          <p className="auth-footer">
            <Link to="/forgot-password">{t('login.forgot')}</Link>
          </p>
        </form>
        {providerList.length > 0 && (
          <section className="providers" aria-labelledby="providers-heading">
            <h2 id="providers-heading" className="divider-heading">
              {t('login.providers')}
            </h2>
            <ul className="provider-list">
              {providerList.map((provider) => (
                <li key={provider.provider_key}>
                  {/* A full navigation: the provider's page, then the API's callback, then
                      back here. */}
                  <a
                    className="button button-secondary button-block"
                    href={`/api/auth/oidc/${encodeURIComponent(provider.provider_key)}/login`}
                    onClick={() => rememberReturnTo(returnTo)}
                  >
                    {t('login.withProvider', { name: provider.name })}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        )}
        {/* Last, and only once the providers are shown: a part that arrives later goes below
            what is already there, so nothing moves under a pointer about to click it. */}
        {providers !== undefined && (
          <Suspense fallback={null}>
            <PasskeySignIn returnTo={returnTo} />
          </Suspense>
        )}
      </Page>
    </AuthFrame>
  )
}
