/**
 * An organization's invitations (owners and admins): send one, and the pending ones with their
 * links, a new link and revoke. An invitation works without mail — its link is shown
 * after sending and in the list, to copy and pass on; the page says whether the mail went out and
 * which earlier invitation (with its role) a new one replaced.
 */
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { MailNotSetUp } from '../ui/mail-setup'
import { CopyButton } from '../ui/secret'
import { describeError } from '../ui/describe-error'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { MoreButton, RoleName } from './parts'
import {
  grantableRoles,
  invitationsQuery,
  mayManage,
  type Organization,
  type Role,
} from './queries'
import { TableHead } from '../ui/table-head'

type CreatedInvitation = Awaited<ReturnType<typeof createInvitation>>

const createInvitation = (organizationId: string, body: { email: string; role: Role }) =>
  unwrap(
    client.POST('/api/organizations/{id}/invitations', {
      params: { path: { id: organizationId } },
      body,
    }),
  )

/** After sending: whether the mail went out, what it replaced, and the link to copy. */
function CreatedInvitationPanel({ invitation }: { invitation: CreatedInvitation }) {
  const { t } = useI18n()
  const email = invitation.email
  return (
    <div className="panel" data-testid="invitation-created">
      <p
        className={invitation.mail === 'sent' ? 'state state-good' : 'state state-weak'}
        role="status"
      >
        {invitation.mail === 'sent' ? (
          t('orgs.invitations.mailSent', { email })
        ) : invitation.mail === 'failed' ? (
          t('orgs.invitations.mailFailed', { email })
        ) : (
          <MailNotSetUp lead={t('orgs.invitations.mailNotConfigured', { email })} />
        )}
      </p>
      {!invitation.sign_up && (
        <p data-testid="invitation-needs-account">
          {t('orgs.invitations.needsAccount', { email })}
        </p>
      )}
      {invitation.replaced !== null && (
        <p data-testid="invitation-replaced">
          {t('orgs.invitations.replaced', {
            email,
            role: t(`orgs.roleName.${invitation.replaced.role}`),
          })}
        </p>
      )}
      <TextField
        label={t('orgs.invitations.link')}
        help={t('orgs.invitations.linkHelp', { email })}
        name="invitation_link"
        className="mono-input"
        readOnly
        value={invitation.link}
        data-testid="invitation-link"
        onFocus={(event) => event.currentTarget.select()}
      />
      <CopyButton text={invitation.link} label={t('orgs.invitations.copyLink')} />
    </div>
  )
}

export function InvitationsSection({ organization }: { organization: Organization }) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const invitations = useInfiniteQuery(invitationsQuery(organization.id))
  const formError = useFormError(['email', 'role'])
  const [sent, setSent] = useState<CreatedInvitation | null>(null)
  const [rowError, setRowError] = useState<string | null>(null)
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: ['organizations', organization.id, 'invitations'] })
  const send = useMutation({
    mutationFn: (body: { email: string; role: Role }) => createInvitation(organization.id, body),
    // The list refreshes on its own: the form is ready for the next address as soon as this one's
    // link is shown (the button ignores a click while it is busy).
    onSuccess: (invitation) => {
      setSent(invitation)
      announce(t('orgs.invitations.created', { email: invitation.email }))
      formError.form.current?.reset()
      void refresh()
    },
    onError: formError.fail,
  })

  const resend = async (id: string, email: string) => {
    setRowError(null)
    try {
      const resent = await unwrap(
        client.POST('/api/organizations/{id}/invitations/{invitation_id}/resend', {
          params: { path: { id: organization.id, invitation_id: id } },
        }),
      )
      announce(
        t(resent.mail === 'sent' ? 'orgs.invitations.resent' : 'orgs.invitations.newLinkMade', {
          email,
        }),
      )
    } catch (error) {
      setRowError(describeError(error, [], i18n).text)
    }
    await refresh()
  }

  const revoke = async (id: string, email: string) => {
    setRowError(null)
    try {
      await unwrap(
        client.DELETE('/api/organizations/{id}/invitations/{invitation_id}', {
          params: { path: { id: organization.id, invitation_id: id } },
        }),
      )
      announce(t('orgs.invitations.revoked', { email }))
    } catch (error) {
      setRowError(describeError(error, [], i18n).text)
    }
    await refresh()
  }

  const items = invitations.data?.pages.flatMap((page) => page.items) ?? []
  const roles = grantableRoles(organization.role)
  return (
    <section className="section" aria-labelledby="org-invitations-heading">
      <h2 id="org-invitations-heading">{t('orgs.invitations.title')}</h2>
      <p className="muted">{t('orgs.invitations.help')}</p>
      <form
        ref={formError.form}
        className="form-inline"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          formError.clear()
          setSent(null)
          const { email = '', role = 'member' } = formValues(event.currentTarget)
          send.mutate({ email, role: role as Role })
        }}
      >
        <FormError>{formError.general}</FormError>
        <TextField
          name="email"
          type="email"
          label={t('orgs.invitations.email')}
          autoComplete="off"
          error={formError.at('email')}
        />
        <SelectField
          name="role"
          label={t('orgs.role')}
          defaultValue="member"
          options={roles.map((role) => ({ value: role, label: t(`orgs.roleName.${role}`) }))}
          error={formError.at('role')}
        />
        <SubmitButton pending={send.isPending}>{t('orgs.invitations.send')}</SubmitButton>
      </form>
      {sent !== null && <CreatedInvitationPanel invitation={sent} />}
      <h3>{t('orgs.invitations.pending')}</h3>
      <FormError>{rowError}</FormError>
      {invitations.isPending ? (
        <p className="skeleton" aria-hidden="true" />
      ) : items.length === 0 ? (
        <p className="empty">{t('orgs.invitations.empty')}</p>
      ) : (
        <table className="table" data-testid="invitations">
          <TableHead
            columns={[
              t('orgs.invitations.email'),
              t('orgs.role'),
              t('orgs.invitations.sentAt'),
              t('orgs.invitation.expires'),
            ]}
            actions
          />
          <tbody>
            {items.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>
                  <RoleName role={invitation.role} />
                </td>
                <td>
                  <RelativeTime iso={invitation.created_at} />
                </td>
                <td>
                  <RelativeTime iso={invitation.expires_at} />
                </td>
                <td className="actions">
                  {mayManage(organization.role, invitation.role, 'manage_invitations') && (
                    <div className="row row-end">
                      {invitation.link !== null && (
                        <CopyButton
                          text={invitation.link}
                          label={t('orgs.invitations.copyLink')}
                          accessibleLabel={t('orgs.invitations.copyLinkFor', {
                            email: invitation.email,
                          })}
                        />
                      )}
                      <button
                        type="button"
                        className="button button-secondary button-small"
                        aria-label={t('orgs.invitations.newLinkFor', { email: invitation.email })}
                        onClick={() => void resend(invitation.id, invitation.email)}
                      >
                        {t('orgs.invitations.newLink')}
                      </button>
                      <ConfirmDialog
                        trigger={t('orgs.invitations.revoke')}
                        triggerLabel={t('orgs.invitations.revokeFor', { email: invitation.email })}
                        title={t('orgs.invitations.revokeTitle', { email: invitation.email })}
                        confirmLabel={t('orgs.invitations.revokeConfirm')}
                        danger
                        onConfirm={() => revoke(invitation.id, invitation.email)}
                      >
                        <p>{t('orgs.invitations.revokeText')}</p>
                      </ConfirmDialog>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton query={invitations} label={t('orgs.invitations.more')} />
    </section>
  )
}
