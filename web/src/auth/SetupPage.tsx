import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Navigate, useNavigate } from '@tanstack/react-router'
import { useRef, useState } from 'react'
import { client, unwrap } from '../api/client'
import { setupQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, focusField, formValues } from '../ui/form'
import { describeError } from '../ui/describe-error'
import { Page } from '../ui/page'
import { AuthFrame } from './AuthFrame'
import { finishSignIn } from './sign-in'

const FIELDS = ['name', 'email', 'password'] as const

export function SetupPage() {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const setup = useQuery(setupQuery)
  const form = useRef<HTMLFormElement>(null)
  const [error, setError] = useState<{ field: string | null; text: string } | null>(null)

  const create = useMutation({
    mutationFn: (body: { name: string; email: string; password: string }) => unwrap(client.POST('/api/auth/setup', { body })),
    onSuccess: (data) => finishSignIn(queryClient, data.user, undefined, (to) => void navigate({ to })),
    onError: (failure) => {
      const shown = describeError(failure, FIELDS, i18n)
      setError(shown)
      queueMicrotask(() => focusField(form.current, shown.field))
    },
  })

  if (setup.data?.initialized === true && !create.isPending && !create.isSuccess) return <Navigate to="/login" />

  return (
    <AuthFrame>
      <Page title={t('setup.title')} description={t('setup.description')}>
        <form
          ref={form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            const values = formValues(event.currentTarget)
            setError(null)
            create.mutate({ name: values.name ?? '', email: values.email ?? '', password: values.password ?? '' })
          }}
        >
          <FormError>{error?.field === null ? error.text : null}</FormError>
          <TextField name="name" label={t('field.name')} autoComplete="name" required error={error?.field === 'name' ? error.text : undefined} />
          <TextField
            name="email"
            type="email"
            label={t('field.email')}
            autoComplete="email"
            required
            error={error?.field === 'email' ? error.text : undefined}
          />
          <TextField
            name="password"
            type="password"
            label={t('field.password')}
            autoComplete="new-password"
            help={t('field.newPassword.help')}
            required
            error={error?.field === 'password' ? error.text : undefined}
          />
          <SubmitButton pending={create.isPending}>{t('setup.submit')}</SubmitButton>
        </form>
      </Page>
    </AuthFrame>
  )
}
