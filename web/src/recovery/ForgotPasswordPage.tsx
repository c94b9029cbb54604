/**
 * "Forgot your password?": asks for the email and says the same thing whatever the address — the
 * service mails a link only when the address has an account, and its answer does not say whether
 * it has. Without outgoing mail on the instance the page says so and sends the person to an
 * administrator instead of pretending to mail anything.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { AuthFrame } from '../auth/AuthFrame'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { resetAvailabilityQuery } from './queries'

export function ForgotPasswordPage() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const availability = useQuery(resetAvailabilityQuery)
  const state = useFormError(['email'])
  const [sent, setSent] = useState<{ email: string; minutes: number } | null>(null)
  const request = useMutation({
    mutationFn: (email: string) =>
      unwrap(client.POST('/api/auth/password-reset', { body: { email } })),
    onSuccess: (data, email) => setSent({ email: email.trim(), minutes: data.link_valid_minutes }),
    onError: (error) => {
      // Mail was switched off since the page loaded: show the page for an instance without mail.
      if (error instanceof ApiError && error.reason === 'NOT_CONFIGURED')
        return void queryClient.invalidateQueries({ queryKey: resetAvailabilityQuery.queryKey })
      state.fail(error)
    },
  })

  return (
    <AuthFrame>
      <Page title={t('forgot.title')} description={t('forgot.description')}>
        {availability.isPending ? (
          <p className="skeleton" aria-hidden="true" />
        ) : availability.data?.by_mail !== true ? (
          <div className="state state-weak state-stack" data-testid="forgot-no-mail">
            <p>
              <strong>{t('forgot.noMail.title')}</strong>
            </p>
            <p>{t('forgot.noMail.text')}</p>
          </div>
        ) : sent !== null ? (
          <div className="state state-good state-stack" role="status" data-testid="forgot-sent">
            <p>
              <strong>{t('forgot.sent.title')}</strong>
            </p>
            <p>{t('forgot.sent.text', { email: sent.email, minutes: sent.minutes })}</p>
            <p>{t('forgot.sent.provider')}</p>
            <p>
              <button type="button" className="button button-ghost" onClick={() => setSent(null)}>
                {t('forgot.sent.again')}
              </button>
            </p>
          </div>
        ) : (
          <form
            ref={state.form}
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              state.clear()
              request.mutate(formValues(event.currentTarget).email ?? '')
            }}
          >
            <FormError>{state.general}</FormError>
            <TextField
              name="email"
              type="email"
              label={t('field.email')}
              autoComplete="username"
              required
              error={state.at('email')}
            />
            <SubmitButton pending={request.isPending}>{t('forgot.submit')}</SubmitButton>
          </form>
        )}
        <p className="auth-footer">
          <Link to="/login">{t('forgot.back')}</Link>
        </p>
      </Page>
    </AuthFrame>
  )
}
