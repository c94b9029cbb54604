/**
 * The members of an organization: change a role, remove a member, leave. An organization always
 * keeps an owner: when a change would take away its only owner, the dialog explains the rule
 * instead of offering a request the API would refuse (409 LAST_OWNER stays the backstop).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { ActionDialog, DialogActions } from '../ui/action-dialog'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { DialogForm } from '../ui/dialog-form'
import { FormError, SubmitButton, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { MoreButton, RoleName } from './parts'
import { grantableRoles, mayManage, membersQuery, type Organization, type Role } from './queries'
import { TableHead } from '../ui/table-head'

interface Member {
  user_id: string
  name: string
  email: string
  role: Role
  joined_at: string
}

export function MembersSection({ organization }: { organization: Organization }) {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const members = useInfiniteQuery(membersQuery(organization.id))
  const items = members.data?.pages.flatMap((page) => page.items) ?? []
  const owners = items.filter((member) => member.role === 'owner')
  // Only a fully loaded list can say that someone is the only owner.
  const isOnlyOwner = (member: Member) =>
    member.role === 'owner' && !members.hasNextPage && owners.length === 1
  return (
    <section className="section" aria-labelledby="org-members-heading">
      <h2 id="org-members-heading">{t('orgs.members.title')}</h2>
      {members.isPending ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <table className="table" data-testid="members">
          <TableHead
            columns={[
              t('orgs.members.name'),
              t('orgs.members.email'),
              t('orgs.role'),
              t('orgs.members.joined'),
            ]}
            actions
          />
          <tbody>
            {items.map((member) => {
              const self = member.user_id === me.data?.id
              const manageable = mayManage(organization.role, member.role)
              return (
                <tr key={member.user_id}>
                  <td>
                    {member.name} {self && <span className="badge">{t('orgs.members.you')}</span>}
                  </td>
                  <td>{member.email}</td>
                  <td>
                    <RoleName role={member.role} />
                  </td>
                  <td>
                    <RelativeTime iso={member.joined_at} />
                  </td>
                  <td className="actions">
                    <div className="row row-end">
                      {manageable && (
                        <ChangeRoleDialog
                          organization={organization}
                          member={member}
                          onlyOwner={isOnlyOwner(member)}
                        />
                      )}
                      {(self || manageable) && (
                        <ExitDialog
                          organization={organization}
                          member={member}
                          onlyOwner={isOnlyOwner(member)}
                          self={self}
                        />
                      )}
                    </div>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
      <MoreButton query={members} label={t('orgs.members.more')} />
    </section>
  )
}

interface MemberActionProps {
  organization: Organization
  member: Member
  onlyOwner: boolean
}

/** The explanation shown instead of a change that would leave the organization without an owner. */
function LastOwnerExplanation({
  member,
  close,
  self,
}: {
  member: Member
  close: () => void
  self: boolean
}) {
  const { t } = useI18n()
  return (
    <>
      <p data-testid="last-owner">
        {self ? t('orgs.lastOwner.self') : t('orgs.lastOwner.other', { name: member.name })}
      </p>
      <p>{t('orgs.lastOwner.next')}</p>
      <DialogActions>
        <button type="button" className="button button-primary" onClick={close}>
          {t('orgs.close')}
        </button>
      </DialogActions>
    </>
  )
}

/** After a change to the person's own membership, their role (or access) changed: refetch both. */
function useMembershipChanged(organization: Organization) {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: ['organizations', organization.id] })
}

function ChangeRoleDialog({ organization, member, onlyOwner }: MemberActionProps) {
  const i18n = useI18n()
  const { t } = i18n
  const me = useQuery(meQuery)
  const refresh = useMembershipChanged(organization)
  const legendId = useId()
  const [error, setError] = useState<string | null>(null)
  const change = useMutation({
    mutationFn: (role: Role) =>
      unwrap(
        client.PATCH('/api/organizations/{id}/members/{user_id}', {
          params: { path: { id: organization.id, user_id: member.user_id } },
          body: { role },
        }),
      ),
  })
  const self = member.user_id === me.data?.id
  return (
    <ActionDialog
      trigger={t('orgs.members.changeRole')}
      triggerLabel={t('orgs.members.changeRoleOf', { name: member.name })}
      title={t('orgs.members.changeRoleTitle', { name: member.name })}
      alert={onlyOwner}
    >
      {(close) =>
        onlyOwner ? (
          <LastOwnerExplanation member={member} close={close} self={self} />
        ) : (
          <DialogForm
            noValidate
            onSubmit={(event) => {
              const role = (formValues(event.currentTarget).role ?? member.role) as Role
              if (role === member.role) return close()
              setError(null)
              change.mutate(role, {
                onSuccess: () => {
                  close()
                  announce(
                    t('orgs.members.roleChanged', {
                      name: member.name,
                      role: t(`orgs.roleName.${role}`),
                    }),
                  )
                  void refresh()
                },
                onError: (failure) => setError(describeError(failure, [], i18n).text),
              })
            }}
          >
            <FormError>{error}</FormError>
            <fieldset className="field" aria-labelledby={legendId}>
              <legend id={legendId}>{t('orgs.role')}</legend>
              {grantableRoles(organization.role).map((role) => (
                <label key={role} className="radio">
                  <input
                    type="radio"
                    name="role"
                    value={role}
                    defaultChecked={role === member.role}
                  />
                  <span>
                    <RoleName role={role} />
                    <span className="muted"> — {t(`orgs.roleHelp.${role}`)}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            {self && organization.role === 'owner' && (
              <p className="warning">{t('orgs.members.selfDemote')}</p>
            )}
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={change.isPending}>{t('orgs.members.changeRole')}</SubmitButton>
            </DialogActions>
          </DialogForm>
        )
      }
    </ActionDialog>
  )
}

/**
 * Removing someone else, or leaving (`self`): confirmed naming the person or organization and what
 * is lost. The only owner is told why instead.
 */
function ExitDialog({
  organization,
  member,
  onlyOwner,
  self,
}: MemberActionProps & { self: boolean }) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const refresh = useMembershipChanged(organization)
  const [error, setError] = useState<string | null>(null)
  const exit = useMutation({
    mutationFn: () =>
      unwrap(
        client.DELETE('/api/organizations/{id}/members/{user_id}', {
          params: { path: { id: organization.id, user_id: member.user_id } },
        }),
      ),
  })
  const done = () => {
    if (!self) {
      announce(t('orgs.members.removed', { name: member.name }))
      void refresh()
      return
    }
    announce(t('orgs.members.left', { organization: organization.name }))
    // Away first: this page's queries would now answer 404.
    void navigate({ to: '/orgs' }).then(() => {
      queryClient.removeQueries({ queryKey: ['organizations', organization.id] })
      return queryClient.invalidateQueries({ queryKey: ['organizations'] })
    })
  }
  return (
    <ActionDialog
      trigger={self ? t('orgs.members.leave') : t('orgs.members.remove')}
      {...(!self && { triggerLabel: t('orgs.members.removeNamed', { name: member.name }) })}
      triggerClassName="button button-danger-outline button-small"
      title={
        self
          ? t('orgs.members.leaveTitle', { organization: organization.name })
          : t('orgs.members.removeTitle', { name: member.name, organization: organization.name })
      }
      alert
    >
      {(close) =>
        onlyOwner ? (
          <LastOwnerExplanation member={member} close={close} self={self} />
        ) : (
          <>
            <FormError>{error}</FormError>
            <p>
              {self
                ? t('orgs.members.leaveText')
                : t('orgs.members.removeText', { name: member.name })}
            </p>
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="button button-danger"
                aria-busy={exit.isPending || undefined}
                onClick={() =>
                  exit.mutate(undefined, {
                    onSuccess: () => {
                      close()
                      done()
                    },
                    onError: (failure) => setError(describeError(failure, [], i18n).text),
                  })
                }
              >
                {self ? t('orgs.members.leaveConfirm') : t('orgs.members.removeConfirm')}
              </button>
            </DialogActions>
          </>
        )
      }
    </ActionDialog>
  )
}
