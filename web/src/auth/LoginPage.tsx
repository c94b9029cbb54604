import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, Navigate, useNavigate, useSearch } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { providersQuery, setupQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { PasskeySignIn } from '../passkeys/PasskeySignIn'
import { AuthFrame } from './AuthFrame'
import { safeReturnTo } from './return-to'
import { finishSignIn, setPendingMfaToken } from './sign-in'

const FIELDS = ['email', 'password'] as const

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
  const queryClient = useQueryClient()
  const setup = useQuery(setupQuery)
  const providers = useQuery(providersQuery)
  const formError = useFormError(FIELDS)
  const returnTo = safeReturnTo(search.return_to) ?? undefined

  const login = useMutation({
    mutationFn: (body: { email: string; password: string }) => unwrap(client.POST('/api/auth/login', { body })),
    onSuccess: (data) => {
      if ('mfa_required' in data) {
        setPendingMfaToken(data.mfa_token)
        void navigate({ to: '/login/mfa', search: { return_to: returnTo } })
      } else {
        finishSignIn(queryClient, data.user, returnTo, (to) => void navigate({ to }))
      }
    },
    onError: formError.fail,
  })

  if (setup.data?.initialized === false) return <Navigate to="/setup" />

  const oidcError = search.error !== undefined ? (OIDC_ERRORS.includes(search.error) ? t(`oidcError.${search.error}`) : t('oidcError.UNKNOWN')) : null
  const providerList = providers.data?.items ?? []

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
          <TextField name="email" type="email" label={t('field.email')} autoComplete="username webauthn" required error={formError.at('email')} />
          <TextField
            name="password"
            type="password"
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
        <PasskeySignIn returnTo={returnTo} />
        {providerList.length > 0 && (
          <section className="providers" aria-labelledby="providers-heading">
            <h2 id="providers-heading" className="divider-heading">
              {t('login.providers')}
            </h2>
            <ul className="provider-list">
              {providerList.map((provider) => (
                <li key={provider.provider_key}>
                  {/* A full navigation: the provider's page, then the API's callback, then back here. */}
                  <a className="button button-secondary button-block" href={`/api/auth/oidc/${encodeURIComponent(provider.provider_key)}/login`}>
                    {t('login.withProvider', { name: provider.name })}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        )}
      </Page>
    </AuthFrame>
  )
}
