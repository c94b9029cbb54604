/**
 * The first-run checklist on an administrator's home: the steps of a team's first week,
 * each with its state as the API reads it from the instance now, and a link to where it is done.
 * Shown until every required step is done or an administrator hides it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'

type ChecklistKey =
  'two_factor' | 'outgoing_mail' | 'identity_provider' | 'require_two_factor' | 'invite_team'

const TARGET: Record<ChecklistKey, { to: string; hash?: string }> = {
  two_factor: { to: '/account/security' },
  outgoing_mail: { to: '/admin/settings', hash: 'smtp' },
  identity_provider: { to: '/admin/providers' },
  require_two_factor: { to: '/admin/settings', hash: 'two-factor-policy' },
  invite_team: { to: '/orgs' },
}

export const checklistQuery = {
  queryKey: ['admin', 'checklist'],
  queryFn: () => unwrap(client.GET('/api/admin/checklist')),
}

export function FirstRunChecklist() {
  const me = useQuery(meQuery)
  if (me.data?.is_admin !== true) return null
  return <Checklist />
}

function Checklist() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  // Always fresh: a step done on another page shows as done on the way back.
  const checklist = useQuery({ ...checklistQuery, staleTime: 0 })
  const dismiss = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/admin/checklist', { body: { dismissed: true } })),
    onSuccess: (data) => {
      queryClient.setQueryData(checklistQuery.queryKey, data)
      announce(t('checklist.dismissed'))
    },
  })
  const data = checklist.data
  if (data === undefined || data.dismissed || data.complete) return null
  return (
    <section
      className="section checklist"
      aria-labelledby="checklist-heading"
      data-testid="checklist"
    >
      <div className="section-header">
        <h2 id="checklist-heading">{t('checklist.title')}</h2>
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => dismiss.mutate()}
        >
          {t('checklist.dismiss')}
        </button>
      </div>
      <p className="muted">{t('checklist.description')}</p>
      <ul className="checklist-items">
        {data.items.map((item) => (
          <li
            key={item.key}
            className={item.done ? 'checklist-item checklist-done' : 'checklist-item'}
            data-key={item.key}
          >
            <span className={item.done ? 'badge badge-good' : 'badge badge-muted'}>
              {item.done ? t('checklist.done') : t('checklist.notDone')}
            </span>
            <Link to={TARGET[item.key].to} hash={TARGET[item.key].hash}>
              {t(`checklist.item.${item.key}`)}
            </Link>
            {item.optional && <span className="muted"> {t('checklist.optional')}</span>}
          </li>
        ))}
      </ul>
    </section>
  )
}
