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
import { FormError, SubmitButton, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { MoreButton, RoleName } from './parts'
import { grantableRoles, mayManage, membersQuery, type Organization, type Role } from './queries'

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
  const isOnlyOwner = (member: Member) => member.role === 'owner' && !members.hasNextPage && owners.length === 1
  return (
    <section className="section" aria-labelledby="org-members-heading">
      <h2 id="org-members-heading">{t('orgs.members.title')}</h2>
      {members.isPending ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <table className="table" data-testid="members">
          <thead>
            <tr>
              <th scope="col">{t('orgs.members.name')}</th>
              <th scope="col">{t('orgs.members.email')}</th>
              <th scope="col">{t('orgs.role')}</th>
              <th scope="col">{t('orgs.members.joined')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
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
                      {manageable && <ChangeRoleDialog organization={organization} member={member} onlyOwner={isOnlyOwner(member)} />}
                      {self ? (
                        <LeaveDialog organization={organization} member={member} onlyOwner={isOnlyOwner(member)} />
                      ) : (
                        manageable && <RemoveDialog organization={organization} member={member} onlyOwner={isOnlyOwner(member)} />
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
function LastOwnerExplanation({ member, close, self }: { member: Member; close: () => void; self: boolean }) {
  const { t } = useI18n()
  return (
    <>
      <p data-testid="last-owner">{self ? t('orgs.lastOwner.self') : t('orgs.lastOwner.other', { name: member.name })}</p>
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
          <form
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              const role = (formValues(event.currentTarget).role ?? member.role) as Role
              if (role === member.role) return close()
              setError(null)
              change.mutate(role, {
                onSuccess: () => {
                  close()
                  announce(t('orgs.members.roleChanged', { name: member.name, role: t(`orgs.roleName.${role}`) }))
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
                  <input type="radio" name="role" value={role} defaultChecked={role === member.role} />
                  <span>
                    <RoleName role={role} />
                    <span className="muted"> — {t(`orgs.roleHelp.${role}`)}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            {self && organization.role === 'owner' && <p className="warning">{t('orgs.members.selfDemote')}</p>}
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <SubmitButton pending={change.isPending}>{t('orgs.members.changeRole')}</SubmitButton>
            </DialogActions>
          </form>
        )
      }
    </ActionDialog>
  )
}

/** Removing someone else, confirmed with their name and what they lose. */
function RemoveDialog({ organization, member, onlyOwner }: MemberActionProps) {
  const i18n = useI18n()
  const { t } = i18n
  const refresh = useMembershipChanged(organization)
  const [error, setError] = useState<string | null>(null)
  const remove = useMutation({
    mutationFn: () =>
      unwrap(client.DELETE('/api/organizations/{id}/members/{user_id}', { params: { path: { id: organization.id, user_id: member.user_id } } })),
  })
  return (
    <ActionDialog
      trigger={t('orgs.members.remove')}
      triggerLabel={t('orgs.members.removeNamed', { name: member.name })}
      triggerClassName="button button-danger-outline button-small"
      title={t('orgs.members.removeTitle', { name: member.name, organization: organization.name })}
      alert
    >
      {(close) =>
        onlyOwner ? (
          <LastOwnerExplanation member={member} close={close} self={false} />
        ) : (
          <>
            <FormError>{error}</FormError>
            <p>{t('orgs.members.removeText', { name: member.name })}</p>
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="button button-danger"
                aria-busy={remove.isPending || undefined}
                onClick={() =>
                  remove.mutate(undefined, {
                    onSuccess: () => {
                      close()
                      announce(t('orgs.members.removed', { name: member.name }))
                      void refresh()
                    },
                    onError: (failure) => setError(describeError(failure, [], i18n).text),
                  })
                }
              >
                {t('orgs.members.removeConfirm')}
              </button>
            </DialogActions>
          </>
        )
      }
    </ActionDialog>
  )
}

/** Leaving: the person loses access at once; the only owner is told why they cannot leave. */
function LeaveDialog({ organization, member, onlyOwner }: MemberActionProps) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [error, setError] = useState<string | null>(null)
  const leave = useMutation({
    mutationFn: () =>
      unwrap(client.DELETE('/api/organizations/{id}/members/{user_id}', { params: { path: { id: organization.id, user_id: member.user_id } } })),
  })
  return (
    <ActionDialog
      trigger={t('orgs.members.leave')}
      triggerClassName="button button-danger-outline button-small"
      title={t('orgs.members.leaveTitle', { organization: organization.name })}
      alert
    >
      {(close) =>
        onlyOwner ? (
          <LastOwnerExplanation member={member} close={close} self />
        ) : (
          <>
            <FormError>{error}</FormError>
            <p>{t('orgs.members.leaveText')}</p>
            <DialogActions>
              <button type="button" className="button button-secondary" onClick={close}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="button button-danger"
                aria-busy={leave.isPending || undefined}
                onClick={() =>
                  leave.mutate(undefined, {
                    onSuccess: () => {
                      close()
                      announce(t('orgs.members.left', { organization: organization.name }))
                      // Away first: this page's queries would now answer 404.
                      void navigate({ to: '/orgs' }).then(() => {
                        queryClient.removeQueries({ queryKey: ['organizations', organization.id] })
                        return queryClient.invalidateQueries({ queryKey: ['organizations'] })
                      })
                    },
                    onError: (failure) => setError(describeError(failure, [], i18n).text),
                  })
                }
              >
                {t('orgs.members.leaveConfirm')}
              </button>
            </DialogActions>
          </>
        )
      }
    </ActionDialog>
  )
}
