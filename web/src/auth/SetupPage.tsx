import { Navigate, useNavigate } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { AuthFrame } from './AuthFrame'
import { useAction, useLoad } from './requests'
import { finishSignIn } from './sign-in'

const FIELDS = ['name', 'email', 'password', 'setup_code'] as const

export function SetupPage() {
  const { t } = useI18n()
  const navigate = useNavigate()
  const setup = useLoad(() => unwrap(client.GET('/api/auth/setup')))
  const formError = useFormError(FIELDS)

  const create = useAction(
    (body: { name: string; email: string; password: string; setup_code?: string }) =>
      unwrap(client.POST('/api/auth/setup', { body })),
    {
      onSuccess: (data) => finishSignIn(data.user, undefined, (to) => void navigate({ to })),
      onError: formError.fail,
    },
  )

  if (setup?.initialized === true && !create.isPending && !create.isSuccess)
    return <Navigate to="/login" />
  // Away from the server itself (or through a proxy) the service asks for the code it printed at
  // start.
  const codeRequired = setup?.setup_code_required === true

  return (
    <AuthFrame>
      <Page title={t('setup.title')} description={t('setup.description')}>
        <form
          ref={formError.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            const values = formValues(event.currentTarget)
            formError.clear()
            create.mutate({
              name: values.name ?? '',
              email: values.email ?? '',
              password: values.password ?? '',
              ...(codeRequired && { setup_code: values.setup_code ?? '' }),
            })
          }}
        >
          <FormError>{formError.general}</FormError>
          <TextField
            name="name"
            label={t('field.name')}
            autoComplete="name"
            required
            error={formError.at('name')}
          />
          <TextField
            name="email"
            type="email"
            label={t('field.email')}
            autoComplete="email"
            required
            error={formError.at('email')}
          />
          <TextField
            name="password"
            type="password"
            label={t('field.password')}
            autoComplete="new-password"
            help={t('field.newPassword.help')}
            required
            error={formError.at('password')}
          />
          {codeRequired && (
            <TextField
              name="setup_code"
              label={t('setup.code')}
              autoComplete="off"
              spellCheck={false}
              help={t('setup.code.help')}
              required
              error={formError.at('setup_code')}
            />
          )}
          <SubmitButton pending={create.isPending}>{t('setup.submit')}</SubmitButton>
        </form>
      </Page>
    </AuthFrame>
  )
}
