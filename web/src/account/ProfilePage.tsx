/**
 * The profile: name, language, theme, AI suggestions, and the email address. The password lives on
 * the Security page only (one place for each credential); this page points there. The
 * email change asks for the password only when the session's re-authentication window is closed,
 * in the same dialog as the Security page (useReauth({ window: true })).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { meQuery, type User } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { PersonFields } from '../ui/person-fields'
import { unlessCancelled, useReauth } from '../ui/reauth-dialog'
import { useFormError } from '../ui/use-form-error'

export function ProfilePage() {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const user = me.data
  return (
    <Page title={t('profile.title')} description={t('profile.description')}>
      {user !== undefined && (
        <>
          <ProfileForm
            key={`${user.name}|${user.language}|${user.theme}|${user.ai_suggestions_enabled}`}
            user={user}
          />
          <EmailForm user={user} />
          <SecurityPointer />
        </>
      )}
    </Page>
  )
}

function ProfileForm({ user }: { user: User }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['name', 'language', 'theme', 'ai_suggestions_enabled'])
  const save = useMutation({
    mutationFn: (body: {
      name: string
      language: string
      theme: 'auto' | 'light' | 'dark'
      ai_suggestions_enabled: boolean
    }) => unwrap(client.PATCH('/api/users/me', { body })),
    onSuccess: (data) => {
      queryClient.setQueryData(['me'], data)
      announce(t('profile.saved'))
    },
    onError: state.fail,
  })
  return (
    <section className="section" aria-labelledby="profile-heading">
      <h2 id="profile-heading">{t('profile.details')}</h2>
      <form
        ref={state.form}
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          const values = formValues(event.currentTarget)
          save.mutate({
            name: values.name ?? '',
            language: values.language ?? 'en',
            theme: (values.theme ?? 'auto') as 'auto' | 'light' | 'dark',
            ai_suggestions_enabled: values.ai_suggestions_enabled === 'on',
          })
        }}
      >
        <FormError>{state.general}</FormError>
        <PersonFields name={user.name} language={user.language} errors={state.at} own />
        <fieldset className="field">
          <legend>{t('profile.theme')}</legend>
          {(['auto', 'light', 'dark'] as const).map((theme) => (
            <div className="radio" key={theme}>
              <input
                type="radio"
                id={`theme-${theme}`}
                name="theme"
                value={theme}
                defaultChecked={user.theme === theme}
              />
              <label htmlFor={`theme-${theme}`}>{t(`profile.theme.${theme}`)}</label>
            </div>
          ))}
        </fieldset>
        <div className="checkbox">
          <input
            type="checkbox"
            id="ai-suggestions"
            name="ai_suggestions_enabled"
            defaultChecked={user.ai_suggestions_enabled}
            aria-describedby="ai-help"
          />
          <label htmlFor="ai-suggestions">{t('profile.ai')}</label>
        </div>
        <p id="ai-help" className="field-help">
          {t('profile.aiHelp')}
        </p>
        <SubmitButton pending={save.isPending}>{t('profile.save')}</SubmitButton>
      </form>
    </section>
  )
}

function EmailForm({ user }: { user: User }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['email'])
  const reauth = useReauth({ window: true })
  const change = useMutation({
    mutationFn: (body: { email: string }) =>
      reauth.run(() => unwrap(client.POST('/api/users/me/email', { body }))),
    onSuccess: (data) => {
      queryClient.setQueryData(['me'], data)
      state.form.current?.reset()
      announce(t('email.sent', { email: data.email_pending ?? '' }))
    },
    onError: unlessCancelled(state.fail),
  })
  return (
    <section className="section" aria-labelledby="email-heading">
      <h2 id="email-heading">{t('email.title')}</h2>
      <p>
        {t('email.current')} <strong>{user.email}</strong>
      </p>
      {user.email_pending !== null && (
        <p className="state state-weak" data-testid="email-pending">
          {t('email.pending', { email: user.email_pending })}
        </p>
      )}
      {user.oidc_provider !== null ? (
        <p className="muted">{t('reason.EMAIL_MANAGED_BY_PROVIDER')}</p>
      ) : (
        <form
          ref={state.form}
          className="form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            state.clear()
            const values = formValues(event.currentTarget)
            change.mutate({ email: values.email ?? '' })
          }}
        >
          <FormError>{state.general}</FormError>
          <TextField
            name="email"
            type="email"
            label={t('email.new')}
            autoComplete="email"
            help={t('email.help')}
            error={state.at('email')}
          />
          <SubmitButton pending={change.isPending}>{t('email.submit')}</SubmitButton>
          {reauth.dialog}
        </form>
      )}
    </section>
  )
}

/**
 * The password, second factors and devices are managed on the Security page; one place for each.
 */
function SecurityPointer() {
  const { t } = useI18n()
  return (
    <section
      className="section"
      aria-labelledby="profile-security-heading"
      data-testid="profile-security"
    >
      <h2 id="profile-security-heading">{t('accountSecurity.profilePointerTitle')}</h2>
      <p className="muted">{t('accountSecurity.profilePointer')}</p>
      <Link to="/account/security" className="button button-secondary">
        {t('accountSecurity.profilePointerLink')}
      </Link>
    </section>
  )
}
