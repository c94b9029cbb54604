/** The profile: name, language, theme, AI suggestions; email change; password change. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { CheckboxField } from '../admin/CheckboxField'
import { meQuery, type User } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { PersonFields } from '../ui/person-fields'
import { useFormError } from '../ui/use-form-error'

export function ProfilePage() {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const user = me.data
  return (
    <Page title={t('profile.title')} description={t('profile.description')}>
      {user !== undefined && (
        <>
          <ProfileForm key={`${user.name}|${user.language}|${user.theme}|${user.ai_suggestions_enabled}`} user={user} />
          <EmailForm user={user} />
          <PasswordForm user={user} />
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
    mutationFn: (body: { name: string; language: string; theme: 'auto' | 'light' | 'dark'; ai_suggestions_enabled: boolean }) =>
      unwrap(client.PATCH('/api/users/me', { body })),
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
              <input type="radio" id={`theme-${theme}`} name="theme" value={theme} defaultChecked={user.theme === theme} />
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
  const state = useFormError(['email', 'password'])
  const change = useMutation({
    mutationFn: (body: { email: string; password?: string }) => unwrap(client.POST('/api/users/me/email', { body })),
    onSuccess: (data) => {
      queryClient.setQueryData(['me'], data)
      state.form.current?.reset()
      announce(t('email.sent', { email: data.email_pending ?? '' }))
    },
    onError: state.fail,
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
            change.mutate({ email: values.email ?? '', ...(user.has_password && { password: values.password ?? '' }) })
          }}
        >
          <FormError>{state.general}</FormError>
          <TextField name="email" type="email" label={t('email.new')} autoComplete="email" help={t('email.help')} error={state.at('email')} />
          {user.has_password && (
            <TextField
              name="password"
              type="password"
              label={t('field.currentPassword')}
              autoComplete="current-password"
              error={state.at('password')}
            />
          )}
          <SubmitButton pending={change.isPending}>{t('email.submit')}</SubmitButton>
        </form>
      )}
    </section>
  )
}

function PasswordForm({ user }: { user: User }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['current_password', 'new_password'])
  const [done, setDone] = useState(false)
  const change = useMutation({
    mutationFn: (body: { current_password?: string; new_password: string; revoke_api_tokens: boolean }) =>
      unwrap(client.POST('/api/users/me/password', { body })),
    onSuccess: async () => {
      state.form.current?.reset()
      setDone(true)
      announce(t('password.changed'))
      await queryClient.invalidateQueries({ queryKey: ['me'] })
      await queryClient.invalidateQueries({ queryKey: ['sessions'] })
    },
    onError: state.fail,
  })
  return (
    <section className="section" aria-labelledby="password-heading">
      <h2 id="password-heading">{t('password.title')}</h2>
      {done && <p className="state state-good">{t('password.changed')}</p>}
      <form
        ref={state.form}
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          setDone(false)
          const values = formValues(event.currentTarget)
          change.mutate({
            new_password: values.new_password ?? '',
            revoke_api_tokens: values.revoke_api_tokens === 'on',
            ...(user.has_password && { current_password: values.current_password ?? '' }),
          })
        }}
      >
        <FormError>{state.general}</FormError>
        {user.has_password && (
          <TextField
            name="current_password"
            type="password"
            label={t('field.currentPassword')}
            autoComplete="current-password"
            error={state.at('current_password')}
          />
        )}
        <TextField
          name="new_password"
          type="password"
          label={t('field.newPassword')}
          autoComplete="new-password"
          help={t('field.newPassword.help')}
          error={state.at('new_password')}
        />
        {/* Issue 28: on by default — a password changed in a hurry usually means a credential leaked. */}
        <CheckboxField name="revoke_api_tokens" label={t('tokens.alsoRevoke')} help={t('tokens.alsoRevokeHelp')} defaultChecked />
        <SubmitButton pending={change.isPending}>{t('password.submit')}</SubmitButton>
      </form>
    </section>
  )
}
