/** The mailed email-verification link: posts its token once, then says what happened. */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Link, useSearch } from '@tanstack/react-router'
import { useEffect, useRef } from 'react'
import { client, unwrap } from '../api/client'
import { AuthFrame } from '../auth/AuthFrame'
import { useI18n } from '../i18n/i18n'
import { FormError } from '../ui/form'
import { Page } from '../ui/page'

export function VerifyEmailPage() {
  const { t } = useI18n()
  const { token } = useSearch({ from: '/verify-email' })
  const queryClient = useQueryClient()
  const started = useRef(false)
  const verify = useMutation({
    mutationFn: (value: string) =>
      unwrap(client.POST('/api/users/email/verify', { body: { token: value } })),
    // The answer names only the new address; a signed-in console reloads its own account.
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['me'] }),
  })

  useEffect(() => {
    if (started.current || token === undefined) return
    started.current = true
    // The token is single use: keep it out of the history once it has been read.
    window.history.replaceState(window.history.state, '', window.location.pathname)
    verify.mutate(token)
  }, [token, verify])

  return (
    <AuthFrame>
      <Page title={t('verify.title')}>
        {verify.isSuccess ? (
          <p className="state state-good" role="status">
            {t('verify.done', { email: verify.data.email })}
          </p>
        ) : verify.isError || (token === undefined && !started.current) ? (
          <FormError>{t('verify.invalid')}</FormError>
        ) : (
          <p role="status">{t('verify.working')}</p>
        )}
        <p>
          <Link to="/account">{t('verify.toAccount')}</Link>
        </p>
      </Page>
    </AuthFrame>
  )
}
