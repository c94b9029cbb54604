/**
 * Administration · Audit log: newest first; filters by action, actor and time live in the query
 * string (Back and reload keep the view); keyset pages; the filtered view downloads as CSV or
 * JSON Lines from the API's streamed export, or as the verifiable export (issue 30), whose
 * integrity status and verifier key are shown above the filters (AuditIntegrity).
 */
import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'
import { AuditIntegrity } from './AuditIntegrity'
import { Pager } from './Pager'
import { auditQuery, definedOnly, type AuditFilters } from './queries'
import { UserPicker } from './UserPicker'

export interface AuditSearch extends AuditFilters {
  cursor?: string | undefined
}

/** Actions the service writes, offered as suggestions; any other text is accepted too. */
const KNOWN_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'admin.user_create',
  'admin.user_update',
  'admin.user_disable',
  'admin.user_enable',
  'admin.user_delete',
  'mfa.reset',
  'team.create',
  'team.update',
  'team.delete',
  'team.member_add',
  'team.member_remove',
  'settings.update',
  'settings.delete',
  'smtp.update',
  'smtp.test',
  'ai.update',
  'oidc_provider.create',
  'oidc_provider.update',
  'oidc_provider.delete',
  'org.create',
  'org.update',
  'org.delete',
  'audit.export',
  'audit.redact',
  'audit.anchor_update',
]

/** An ISO instant as the value of a datetime-local input, in the browser's time zone. */
function toLocalInput(iso: string | undefined): string {
  if (iso === undefined) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

function fromLocalInput(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

export function exportHref(filters: AuditFilters, format: 'csv' | 'jsonl' | 'verifiable'): string {
  const query = new URLSearchParams({ format, ...(definedOnly(filters) as Record<string, string>) })
  return `/api/admin/audit-log/export?${query.toString()}`
}

export function AuditPage({ search }: { search: AuditSearch }) {
  const { t } = useI18n()
  const { cursor, ...rest } = search
  const filters = definedOnly(rest) as AuditFilters
  const events = useQuery(auditQuery(filters, cursor))
  const items = events.data?.items ?? []
  const filtered = Object.keys(filters).length > 0
  return (
    <Page
      title={t('admin.audit.title')}
      description={t('admin.audit.description')}
      actions={
        <div className="row" role="group" aria-label={t('admin.audit.export')}>
          <a className="button button-secondary" href={exportHref(filters, 'csv')} download data-testid="export-csv">
            {t('admin.audit.exportCsv')}
          </a>
          <a className="button button-secondary" href={exportHref(filters, 'jsonl')} download data-testid="export-jsonl">
            {t('admin.audit.exportJsonl')}
          </a>
          <a className="button button-secondary" href={exportHref(filters, 'verifiable')} download data-testid="export-verifiable">
            {t('admin.audit.exportVerifiable')}
          </a>
        </div>
      }
    >
      <AuditIntegrity />
      <AuditFiltersForm key={JSON.stringify(filters)} filters={filters} />
      {events.isSuccess && items.length === 0 ? (
        <p className="empty" data-testid="audit-empty">
          {filtered ? t('admin.audit.noMatch') : t('admin.audit.empty')}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table" data-testid="audit">
            <TableHead
              columns={[
                t('admin.audit.at'),
                t('admin.audit.actor'),
                t('admin.audit.action'),
                t('admin.audit.target'),
                t('admin.audit.ip'),
                t('admin.audit.details'),
              ]}
            />
            <tbody>
              {items.map((event) => (
                <tr key={event.id}>
                  <td>
                    <RelativeTime iso={event.at} />
                  </td>
                  <td>{event.actor_email ?? (event.actor_id === null ? t('admin.audit.operator') : event.actor_id)}</td>
                  <td className="mono">{event.action}</td>
                  <td className="mono">{event.target_type === null ? '—' : `${event.target_type} ${event.target_id ?? ''}`}</td>
                  <td className="mono">{event.ip ?? '—'}</td>
                  <td className="mono metadata-cell">{Object.keys(event.metadata).length === 0 ? '—' : JSON.stringify(event.metadata)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} nextCursor={events.data?.next_cursor} label={t('admin.audit.pages')} />
    </Page>
  )
}

function AuditFiltersForm({ filters }: { filters: AuditFilters }) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const listId = useId()
  const [actorId, setActorId] = useState<string | undefined>(filters.actor_id)
  const actor = useQuery({
    queryKey: ['admin', 'user', filters.actor_id],
    queryFn: () => unwrap(client.GET('/api/admin/users/{id}', { params: { path: { id: filters.actor_id! } } })),
    enabled: filters.actor_id !== undefined,
    retry: false,
  })
  const ready = filters.actor_id === undefined || !actor.isPending
  return (
    <form
      className="filters"
      role="search"
      aria-label={t('admin.audit.filters')}
      onSubmit={(event) => {
        event.preventDefault()
        const values = formValues(event.currentTarget)
        const next = definedOnly({
          action: (values.action ?? '').trim(),
          actor_id: actorId,
          since: fromLocalInput(values.since),
          until: fromLocalInput(values.until),
        })
        void navigate({ to: '/admin/audit', search: next as AuditSearch as never })
      }}
    >
      <TextField
        name="action"
        label={t('admin.audit.action')}
        defaultValue={filters.action ?? ''}
        list={listId}
        autoComplete="off"
        spellCheck={false}
      />
      <datalist id={listId}>
        {KNOWN_ACTIONS.map((action) => (
          <option key={action} value={action} />
        ))}
      </datalist>
      {ready && (
        <UserPicker
          name="actor"
          label={t('admin.audit.actor')}
          initialText={actor.data?.email ?? filters.actor_id ?? ''}
          onSelect={(user) => setActorId(user?.id)}
        />
      )}
      <TextField name="since" type="datetime-local" label={t('admin.audit.since')} defaultValue={toLocalInput(filters.since)} />
      <TextField name="until" type="datetime-local" label={t('admin.audit.until')} defaultValue={toLocalInput(filters.until)} />
      <div className="filters-actions">
        <SubmitButton pending={false}>{t('admin.audit.apply')}</SubmitButton>
        <button type="button" className="button button-ghost" onClick={() => void navigate({ to: '/admin/audit', search: {} as never })}>
          {t('admin.audit.clear')}
        </button>
      </div>
    </form>
  )
}
