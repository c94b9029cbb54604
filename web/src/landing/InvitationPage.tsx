/**
 * The mailed invitation link. It first says who invites whom where, with which role. Signed in:
 * accept with one button — nothing happens by merely opening the link. Signed out: sign in with the
 * invited address, or — when the address has no account and the instance allows it — create the
 * account right here and join.
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
import { InvitationSignUp, type InvitationPreview } from './InvitationSignUp'

export function InvitationPage() {
  const { t } = useI18n()
  const { token } = useSearch({ from: '/invitations/accept' })
  const me = useQuery({ ...meQuery, retry: false })
  const preview = useQuery({
    queryKey: ['invitation-preview', token],
    enabled: token !== undefined,
    retry: false,
    staleTime: Infinity,
    queryFn: () =>
      unwrap(client.POST('/api/invitations/preview', { body: { token: token ?? '' } })),
  })
  const signedOut = me.error instanceof ApiError && me.error.status === 401
  const here = `/invitations/accept?token=${encodeURIComponent(token ?? '')}`
  const spent = preview.error instanceof ApiError && preview.error.status === 400

  return (
    <AuthFrame>
      <Page title={t('invitation.title')} description={t('invitation.description')}>
        {token === undefined ? (
          <FormError>{t('invitation.invalid')}</FormError>
        ) : spent && signedOut ? (
          <>
            <FormError>{t('invitation.spentSignIn')}</FormError>
            <Link className="button button-primary" to="/login">
              {t('invitation.signInOnly')}
            </Link>
          </>
        ) : spent ? (
          <FormError>{t('invitation.invalid')}</FormError>
        ) : preview.data === undefined || (me.data === undefined && !signedOut) ? (
          <p className="skeleton" aria-hidden="true" />
        ) : (
          <>
            <InvitationSummary preview={preview.data} />
            {me.data !== undefined ? (
              <AcceptForm token={token} email={me.data.email} />
            ) : preview.data.has_account ? (
              <>
                <p>{t('invitation.signInAs', { email: preview.data.email })}</p>
                <Link className="button button-primary" to="/login" search={{ return_to: here }}>
                  {t('invitation.signIn')}
                </Link>
              </>
            ) : preview.data.sign_up ? (
              <InvitationSignUp token={token} preview={preview.data} signInHref={here} />
            ) : (
              <>
                <p>{t('invitation.needsAccount', { email: preview.data.email })}</p>
                <Link className="button button-secondary" to="/login" search={{ return_to: here }}>
                  {t('invitation.signIn')}
                </Link>
              </>
            )}
          </>
        )}
      </Page>
    </AuthFrame>
  )
}

function InvitationSummary({ preview }: { preview: InvitationPreview }) {
  const { t } = useI18n()
  const role = t(`role.${preview.role}` as 'role.member')
  return (
    <p data-testid="invitation-summary">
      {preview.invited_by_name === null
        ? t('invitation.summaryNoInviter', { organization: preview.organization_name, role })
        : t('invitation.summary', {
            inviter: preview.invited_by_name,
            organization: preview.organization_name,
            role,
          })}
    </p>
  )
}

function AcceptForm({ token, email }: { token: string; email: string }) {
  const { t, reason } = useI18n()
  const accept = useMutation({
    mutationFn: (value: string) =>
      unwrap(client.POST('/api/invitations/accept', { body: { token: value } })),
  })
  const failure = accept.error
  const failureText =
    failure instanceof ApiError
      ? failure.status === 400
        ? t('invitation.invalid')
        : failure.status === 403
          ? t('invitation.otherAddress', { email })
          : failure.status === 409
            ? t('invitation.already')
            : reason(failure.reason, failure.message)
      : failure !== null
        ? reason('NETWORK')
        : null
  if (accept.isSuccess)
    return (
      <>
        <p className="state state-good" role="status">
          {t('invitation.accepted', {
            organization: accept.data.name,
            role: t(`role.${accept.data.role}` as 'role.member'),
          })}
        </p>
        <Link className="button button-primary" to="/orgs/$org" params={{ org: accept.data.slug }}>
          {t('invitation.open', { organization: accept.data.name })}
        </Link>
      </>
    )
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        accept.mutate(token)
      }}
    >
      <p>{t('invitation.as', { email })}</p>
      <FormError>{failureText}</FormError>
      <SubmitButton pending={accept.isPending}>{t('invitation.accept')}</SubmitButton>
    </form>
  )
}
