/**
 * "Create your account" on an invitation's page: the invitation proves the address, so only a name
 * and a password are asked; the service creates the account, joins and signs in, and the person
 * lands in the organization. Where the instance has identity providers, signing in with one is
 * offered too: the person comes back to the invitation signed in and accepts it there.
 */
import { useMutation, useQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import type { operations } from '../api/schema'
import { providersQuery } from '../api/queries'
import { rememberReturnTo } from '../auth/return-to'
import { finishSignIn } from '../auth/sign-in'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { NewPasswordField } from '../ui/PasswordStrength'
import { useFormError } from '../ui/use-form-error'

export type InvitationPreview =
  operations['previewInvitation']['responses'][200]['content']['application/json']

const FIELDS = ['name', 'password'] as const

export function InvitationSignUp({
  token,
  preview,
  signInHref,
}: {
  token: string
  preview: InvitationPreview
  signInHref: string
}) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const state = useFormError(FIELDS)
  const signUp = useMutation({
    mutationFn: (body: { name: string; password: string }) =>
      unwrap(client.POST('/api/invitations/sign-up', { body: { token, ...body } })),
    onSuccess: (data) =>
      finishSignIn(data.user, `/orgs/${data.organization.slug}`, (to) => void navigate({ to })),
    onError: state.fail,
  })
  const providers = useQuery(providersQuery).data?.items ?? []
  // Someone made the account meanwhile (another tab): the link now asks to sign in.
  const taken = signUp.error instanceof ApiError && signUp.error.status === 409
  return (
    <section aria-labelledby="invitation-sign-up">
      <h2 id="invitation-sign-up">{t('invitation.createTitle')}</h2>
      <p>{t('invitation.createFor', { email: preview.email })}</p>
      <form
        ref={state.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          const values = formValues(event.currentTarget)
          signUp.mutate({ name: values.name ?? '', password: values.password ?? '' })
        }}
      >
        <FormError>{taken ? t('invitation.accountExists') : state.general}</FormError>
        {/* For the password manager: the account's address, fixed by the invitation. */}
        <input type="hidden" name="email" autoComplete="username" value={preview.email} />
        <TextField
          name="name"
          label={t('field.name')}
          autoComplete="name"
          required
          error={state.at('name')}
        />
        <NewPasswordField
          name="password"
          label={t('field.password')}
          email={preview.email}
          required
          error={state.at('password')}
        />
        <SubmitButton pending={signUp.isPending}>{t('invitation.create')}</SubmitButton>
      </form>
      {providers.length > 0 && (
        <section className="providers" aria-labelledby="invitation-providers">
          <h3 id="invitation-providers" className="divider-heading">
            {t('invitation.withProviders')}
          </h3>
          <p>{t('invitation.withProvidersHelp', { email: preview.email })}</p>
          <ul className="provider-list">
            {providers.map((provider) => (
              <li key={provider.provider_key}>
                {/* A full navigation: the provider, the API's callback, then back here. */}
                <a
                  className="button button-secondary button-block"
                  href={`/api/auth/oidc/${encodeURIComponent(provider.provider_key)}/login`}
                  onClick={() => rememberReturnTo(signInHref)}
                >
                  {t('login.withProvider', { name: provider.name })}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <p>
        {t('invitation.haveAccount')}{' '}
        <Link to="/login" search={{ return_to: signInHref }}>
          {t('invitation.signInInstead')}
        </Link>
      </p>
    </section>
  )
}
