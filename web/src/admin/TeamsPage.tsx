/** Administration · Teams: a paged list by name, and creating a team. */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'
import { TeamsAndOrganizations } from '../ui/teams-and-organizations'
import { Pager } from './Pager'
import { teamsQuery } from './queries'
import { TeamForm } from './TeamForm'

export function TeamsPage({ cursor }: { cursor: string | undefined }) {
  const { t } = useI18n()
  const teams = useQuery(teamsQuery(cursor))
  const items = teams.data?.items ?? []
  return (
    <Page title={t('admin.teams.title')} description={t('admin.teams.description')}>
      {/* What a team is for, next to organizations (docs/API.md#teams); the Organizations page
          says the same. */}
      <TeamsAndOrganizations />
      <CreateTeamForm />
      <section className="section" aria-labelledby="teams-heading">
        <h2 id="teams-heading">{t('admin.teams.list')}</h2>
        {teams.isSuccess && items.length === 0 ? (
          <p className="empty">{t('admin.teams.empty')}</p>
        ) : (
          <table className="table" data-testid="teams">
            <TableHead
              columns={[
                t('field.name'),
                t('admin.teams.descriptionColumn'),
                t('admin.teams.members'),
                t('admin.teams.createdAt'),
              ]}
            />
            <tbody>
              {items.map((team) => (
                <tr key={team.id}>
                  <td>
                    <Link to="/admin/teams/$teamId" params={{ teamId: team.id }}>
                      {team.name}
                    </Link>
                  </td>
                  <td className="muted">{team.description ?? '—'}</td>
                  <td>{team.member_count}</td>
                  <td>
                    <RelativeTime iso={team.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager
          cursor={cursor}
          nextCursor={teams.data?.next_cursor}
          label={t('admin.teams.pages')}
        />
      </section>
    </Page>
  )
}

function CreateTeamForm() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  return (
    <TeamForm
      headingId="new-team-heading"
      heading={t('admin.teams.new')}
      submitLabel={t('admin.teams.create')}
      inline
      save={(body) => unwrap(client.POST('/api/admin/teams', { body }))}
      saved={async (team, reset) => {
        announce(t('admin.teams.created', { name: team.name }))
        reset()
        await queryClient.invalidateQueries({ queryKey: ['admin', 'teams'] })
      }}
    />
  )
}
