/**
 * Administration · one team: rename and describe it, its members (add by email or by picking a
 * user, remove), delete it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { TableHead } from '../ui/table-head'
import { Pager } from './Pager'
import { teamMembersQuery, teamQuery, type AdminUser, type Team } from './queries'
import { TeamForm } from './TeamForm'
import { UserPicker } from './UserPicker'

export function TeamPage({ teamId, cursor }: { teamId: string; cursor: string | undefined }) {
  const { t } = useI18n()
  const team = useQuery(teamQuery(teamId))
  if (team.error) throw team.error
  const data = team.data
  return (
    <Page
      title={data?.name ?? t('admin.teams.title')}
      description={data?.description ?? t('admin.team.description')}
      actions={
        <Link to="/admin/teams" className="back-link">
          {t('admin.teams.back')}
        </Link>
      }
    >
      {data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <>
          <Members team={data} cursor={cursor} />
          <AddMember team={data} />
          <TeamSettings key={`${data.name}|${data.description}`} team={data} />
          <DeleteTeam team={data} />
        </>
      )}
    </Page>
  )
}

function Members({ team, cursor }: { team: Team; cursor: string | undefined }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const members = useQuery(teamMembersQuery(team.id, cursor))
  const items = members.data?.items ?? []
  const remove = async (userId: string, name: string) => {
    await unwrap(
      client.DELETE('/api/admin/teams/{id}/members/{user_id}', {
        params: { path: { id: team.id, user_id: userId } },
      }),
    )
    announce(t('admin.team.removed', { name }))
    await queryClient.invalidateQueries({ queryKey: ['admin', 'team', team.id] })
    await queryClient.invalidateQueries({ queryKey: ['admin', 'teams'] })
  }
  return (
    <section className="section" aria-labelledby="members-heading">
      <h2 id="members-heading">{t('admin.team.membersCount', { count: team.member_count })}</h2>
      {members.isSuccess && items.length === 0 ? (
        <p className="empty">{t('admin.team.empty')}</p>
      ) : (
        <table className="table" data-testid="team-members">
          <TableHead
            columns={[t('field.name'), t('field.email'), t('admin.team.addedAt')]}
            actions
          />
          <tbody>
            {items.map((member) => (
              <tr key={member.user_id}>
                <td>
                  <Link to="/admin/users/$userId" params={{ userId: member.user_id }}>
                    {member.name}
                  </Link>
                </td>
                <td>{member.email}</td>
                <td>
                  <RelativeTime iso={member.added_at} />
                </td>
                <td className="actions">
                  <ConfirmDialog
                    trigger={t('admin.team.remove')}
                    triggerLabel={t('admin.team.removeNamed', { name: member.name })}
                    title={t('admin.team.removeTitle', { name: member.name, team: team.name })}
                    confirmLabel={t('admin.team.remove')}
                    danger
                    onConfirm={() => remove(member.user_id, member.name)}
                  >
                    <p>{t('admin.team.removeText')}</p>
                  </ConfirmDialog>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager cursor={cursor} nextCursor={members.data?.next_cursor} label={t('admin.team.pages')} />
    </section>
  )
}

function useAddMember(team: Team, done: () => void, fail: (error: unknown) => void) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: { email: string } | { user_id: string }) =>
      unwrap(
        client.POST('/api/admin/teams/{id}/members', { params: { path: { id: team.id } }, body }),
      ),
    onSuccess: async (member) => {
      announce(t('admin.team.added', { name: member.name }))
      done()
      await queryClient.invalidateQueries({ queryKey: ['admin', 'team', team.id] })
      await queryClient.invalidateQueries({ queryKey: ['admin', 'teams'] })
    },
    onError: fail,
  })
}

function AddMember({ team }: { team: Team }) {
  const { t } = useI18n()
  const byEmail = useFormError(['email'])
  const byPick = useFormError(['user_id'])
  const [picked, setPicked] = useState<AdminUser | null>(null)
  const [pickMissing, setPickMissing] = useState(false)
  const [pickerKey, setPickerKey] = useState(0)
  // An address no account has is a 404 without details: said at the field, in the person's
  // language.
  const addByEmail = useAddMember(
    team,
    () => byEmail.form.current?.reset(),
    (error) => {
      const text = t('admin.team.noSuchUser')
      byEmail.fail(
        error instanceof ApiError && error.reason === 'NOT_FOUND'
          ? new ApiError(404, 'NOT_FOUND', text, [{ field: 'email', message: text }], null)
          : error,
      )
    },
  )
  const addPicked = useAddMember(
    team,
    () => {
      setPicked(null)
      setPickerKey((key) => key + 1)
    },
    byPick.fail,
  )
  return (
    <section className="section" aria-labelledby="add-heading">
      <h2 id="add-heading">{t('admin.team.add')}</h2>
      <div className="grid-2">
        <form
          ref={byPick.form}
          className="panel"
          aria-labelledby="pick-heading"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            byPick.clear()
            setPickMissing(picked === null)
            if (picked === null) return
            addPicked.mutate({ user_id: picked.id })
          }}
        >
          <h3 id="pick-heading">{t('admin.team.pick')}</h3>
          <FormError>{byPick.general}</FormError>
          <UserPicker
            key={pickerKey}
            name="user"
            label={t('admin.team.user')}
            help={t('admin.team.userHelp')}
            onSelect={(user) => {
              setPicked(user)
              setPickMissing(false)
            }}
            error={pickMissing ? t('admin.team.pickFirst') : byPick.at('user_id')}
          />
          <SubmitButton pending={addPicked.isPending}>{t('admin.team.addSubmit')}</SubmitButton>
        </form>
        <form
          ref={byEmail.form}
          className="panel"
          aria-labelledby="email-heading"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            byEmail.clear()
            addByEmail.mutate({ email: formValues(event.currentTarget).email ?? '' })
          }}
        >
          <h3 id="email-heading">{t('admin.team.byEmail')}</h3>
          <FormError>{byEmail.general}</FormError>
          <TextField
            name="email"
            type="email"
            label={t('field.email')}
            autoComplete="off"
            error={byEmail.at('email')}
          />
          <SubmitButton pending={addByEmail.isPending}>{t('admin.team.addSubmit')}</SubmitButton>
        </form>
      </div>
    </section>
  )
}

function TeamSettings({ team }: { team: Team }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  return (
    <TeamForm
      team={team}
      headingId="team-settings-heading"
      heading={t('admin.team.settings')}
      submitLabel={t('admin.team.save')}
      save={(body) =>
        unwrap(client.PATCH('/api/admin/teams/{id}', { params: { path: { id: team.id } }, body }))
      }
      saved={async (data) => {
        announce(t('admin.team.saved'))
        queryClient.setQueryData(teamQuery(team.id).queryKey, data)
        await queryClient.invalidateQueries({ queryKey: ['admin', 'teams'] })
      }}
    />
  )
}

function DeleteTeam({ team }: { team: Team }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const remove = async () => {
    await unwrap(client.DELETE('/api/admin/teams/{id}', { params: { path: { id: team.id } } }))
    announce(t('admin.team.deleted', { name: team.name }))
    queryClient.removeQueries({ queryKey: ['admin', 'team', team.id] })
    await queryClient.invalidateQueries({ queryKey: ['admin', 'teams'] })
    void navigate({ to: '/admin/teams' })
  }
  return (
    <section className="section danger-zone" aria-labelledby="delete-team-heading">
      <h2 id="delete-team-heading">{t('admin.team.delete')}</h2>
      <p className="muted">{t('admin.team.deleteHelp')}</p>
      <ConfirmDialog
        trigger={t('admin.team.delete')}
        title={t('admin.team.deleteTitle', { name: team.name })}
        confirmLabel={t('admin.team.delete')}
        danger
        onConfirm={remove}
      >
        <p>{t('admin.team.deleteText', { count: team.member_count })}</p>
      </ConfirmDialog>
    </section>
  )
}
