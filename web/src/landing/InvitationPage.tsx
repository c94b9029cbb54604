/**
 * The mailed invitation link. Signed out: sign in first (with the invited address), then come back
 * here. Signed in: accept with one button — nothing happens by merely opening the link.
 */
import { useMutation, useQuery } from '@tanstack/react-query'
import { Link, useSearch } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { meQuery } from '../api/queries'
import { AuthFrame } from '../auth/AuthFrame'
import { useI18n } from '../i18n/i18n'
import { FormError, SubmitButton } from '../ui/form'
import { Page } from '../ui/page'

export function InvitationPage() {
  const { t, reason } = useI18n()
  const { token } = useSearch({ from: '/invitations/accept' })
  const me = useQuery({ ...meQuery, retry: false })
  const accept = useMutation({
    mutationFn: (value: string) =>
      unwrap(client.POST('/api/invitations/accept', { body: { token: value } })),
  })
  const here = `/invitations/accept?token=${encodeURIComponent(token ?? '')}`
  const signedOut = me.error instanceof ApiError && me.error.status === 401

  const failure = accept.error
  const failureText =
    failure instanceof ApiError
      ? failure.status === 400
        ? t('invitation.invalid')
        : failure.status === 403
          ? t('invitation.otherAddress', { email: me.data?.email ?? '' })
          : failure.status === 409
            ? t('invitation.already')
            : reason(failure.reason, failure.message)
      : failure !== null
        ? reason('NETWORK')
        : null

  return (
    <AuthFrame>
      <Page title={t('invitation.title')} description={t('invitation.description')}>
        {token === undefined ? (
          <FormError>{t('invitation.invalid')}</FormError>
        ) : signedOut ? (
          <>
            <p>{t('invitation.signInFirst')}</p>
            <Link className="button button-primary" to="/login" search={{ return_to: here }}>
              {t('invitation.signIn')}
            </Link>
          </>
        ) : accept.isSuccess ? (
          <p className="state state-good" role="status">
            {t('invitation.accepted', {
              organization: accept.data.name,
              role: t(`role.${accept.data.role}` as 'role.member'),
            })}
          </p>
        ) : me.data !== undefined ? (
          <form
            onSubmit={(event) => {
              event.preventDefault()
              accept.mutate(token)
            }}
          >
            <p>{t('invitation.as', { email: me.data.email })}</p>
            <FormError>{failureText}</FormError>
            <SubmitButton pending={accept.isPending}>{t('invitation.accept')}</SubmitButton>
          </form>
        ) : (
          <p className="skeleton" aria-hidden="true" />
        )}
      </Page>
    </AuthFrame>
  )
}
