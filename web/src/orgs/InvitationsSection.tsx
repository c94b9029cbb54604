/**
 * An organization's invitations (owners and admins): send one, and the pending ones with resend
 * and revoke. Resending mails a new link, valid 7 days, and the earlier link stops working.
 */
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { describeError } from '../ui/describe-error'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { MoreButton, RoleName } from './parts'
import { grantableRoles, invitationsQuery, mayManage, type Organization, type Role } from './queries'
import { TableHead } from '../ui/table-head'

export function InvitationsSection({ organization }: { organization: Organization }) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const invitations = useInfiniteQuery(invitationsQuery(organization.id))
  const formError = useFormError(['email', 'role'])
  const [sent, setSent] = useState<string | null>(null)
  const [rowError, setRowError] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['organizations', organization.id, 'invitations'] })
  const send = useMutation({
    mutationFn: (body: { email: string; role: Role }) =>
      unwrap(client.POST('/api/organizations/{id}/invitations', { params: { path: { id: organization.id } }, body })),
    onSuccess: async (invitation) => {
      setSent(t('orgs.invitations.sent', { email: invitation.email }))
      formError.form.current?.reset()
      await refresh()
    },
    onError: formError.fail,
  })

  const resend = async (id: string, email: string) => {
    setRowError(null)
    try {
      await unwrap(
        client.POST('/api/organizations/{id}/invitations/{invitation_id}/resend', { params: { path: { id: organization.id, invitation_id: id } } }),
      )
      announce(t('orgs.invitations.resent', { email }))
    } catch (error) {
      setRowError(describeError(error, [], i18n).text)
    }
    await refresh()
  }

  const revoke = async (id: string, email: string) => {
    setRowError(null)
    try {
      await unwrap(
        client.DELETE('/api/organizations/{id}/invitations/{invitation_id}', { params: { path: { id: organization.id, invitation_id: id } } }),
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
        <TextField name="email" type="email" label={t('orgs.invitations.email')} autoComplete="off" error={formError.at('email')} />
        <SelectField
          name="role"
          label={t('orgs.role')}
          defaultValue="member"
          options={roles.map((role) => ({ value: role, label: t(`orgs.roleName.${role}`) }))}
          error={formError.at('role')}
        />
        <SubmitButton pending={send.isPending}>{t('orgs.invitations.send')}</SubmitButton>
      </form>
      {sent !== null && (
        <p className="state state-good" role="status">
          {sent}
        </p>
      )}
      <h3>{t('orgs.invitations.pending')}</h3>
      <FormError>{rowError}</FormError>
      {invitations.isPending ? (
        <p className="skeleton" aria-hidden="true" />
      ) : items.length === 0 ? (
        <p className="empty">{t('orgs.invitations.empty')}</p>
      ) : (
        <table className="table" data-testid="invitations">
          <TableHead columns={[t('orgs.invitations.email'), t('orgs.role'), t('orgs.invitations.sentAt'), t('orgs.invitation.expires')]} actions />
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
                      <button
                        type="button"
                        className="button button-secondary button-small"
                        aria-label={t('orgs.invitations.resendTo', { email: invitation.email })}
                        onClick={() => void resend(invitation.id, invitation.email)}
                      >
                        {t('orgs.invitations.resend')}
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
