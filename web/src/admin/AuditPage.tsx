/**
 * Administration · Audit log: newest first; filters by action, actor and time live in the query
 * string (Back and reload keep the view); keyset pages; the filtered view downloads as CSV or
 * JSON Lines from the API's streamed export, or as the verifiable export, whose
 * integrity status and verifier key are shown above the filters (AuditIntegrity).
 *
 * Targets by name (the id on hover), details as readable lines with the raw JSON behind
 * a toggle, times in the person's language, an action picker grouped by area (the API matches by
 * prefix), and a From after Before refused in the form.
 */
import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useRef, useState } from 'react'
import {
  ComboBox,
  Header,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  ListBoxSection,
  Popover,
  Text,
} from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { DateTimeField, focusDateTimeField, fromLocalDateTime } from '../ui/date-time-field'
import { SubmitButton, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { TableHead } from '../ui/table-head'
import { auditFacts } from './audit-facts'
import { AuditIntegrity } from './AuditIntegrity'
import { Pager } from './Pager'
import { auditQuery, definedOnly, type AuditEvent, type AuditFilters } from './queries'
import { UserPicker } from './UserPicker'

export interface AuditSearch extends AuditFilters {
  cursor?: string | undefined
}

/**
 * Actions the service writes, grouped by area (the part before the dot). The filter matches by
 * prefix, so an area selects all of its actions; any other text is accepted too.
 */
export const KNOWN_ACTIONS: Record<string, string[]> = {
  auth: [
    'auth.login',
    'auth.login_failed',
    'auth.logout',
    'auth.mfa_required',
    'auth.mfa_verify_failed',
    'auth.oidc_failed',
    'auth.passkey_failed',
    'auth.password_reset_unknown',
    'auth.setup',
  ],
  user: [
    'user.create',
    'user.update',
    'user.delete',
    'user.sign_up',
    'user.password_change',
    'user.password_reset',
    'user.password_reset_requested',
    'user.email_change_requested',
    'user.email_verified',
    'user.notifications_update',
    'user.oidc_link',
    'user.oidc_unlink',
    'user.oidc_email_update',
  ],
  mfa: [
    'mfa.enable',
    'mfa.disable',
    'mfa.reset',
    'mfa.backup_regenerate',
    'mfa.enroll_begin',
    'mfa.enroll_cancel',
    'mfa.enroll_confirm_failed',
  ],
  passkey: ['passkey.register', 'passkey.rename', 'passkey.delete'],
  session: ['session.revoke'],
  token: ['token.create', 'token.revoke'],
  admin: [
    'admin.user_create',
    'admin.user_update',
    'admin.user_disable',
    'admin.user_enable',
    'admin.user_delete',
  ],
  team: ['team.create', 'team.update', 'team.delete', 'team.member_add', 'team.member_remove'],
  org: [
    'org.create',
    'org.update',
    'org.delete',
    'org.member_role_change',
    'org.member_remove',
    'org.invitation_create',
    'org.invitation_resend',
    'org.invitation_revoke',
    'org.invitation_accept',
    'org.invitation_decline',
  ],
  settings: [
    'settings.update',
    'settings.delete',
    'settings.two_factor_policy',
    'settings.sign_up',
    'settings.api_tokens',
    'settings.first_run_checklist',
  ],
  smtp: ['smtp.update', 'smtp.test'],
  ai: ['ai.update'],
  oidc_provider: ['oidc_provider.create', 'oidc_provider.update', 'oidc_provider.delete'],
  scim: [
    'scim.credential_create',
    'scim.credential_revoke',
    'scim.user_create',
    'scim.user_adopt',
    'scim.user_activate',
    'scim.user_deactivate',
    'scim.user_delete',
    'scim.group_create',
    'scim.group_delete',
  ],
  links: ['links.import'],
  billing: ['billing.checkout_create', 'billing.plan_change'],
  audit: ['audit.export', 'audit.redact', 'audit.anchor_update'],
  instance: ['instance.encryption_key_rotate'],
}

export function exportHref(filters: AuditFilters, format: 'csv' | 'jsonl' | 'verifiable'): string {
  const query = new URLSearchParams({ format, ...(definedOnly(filters) as Record<string, string>) })
  return `/api/admin/audit-log/export?${query.toString()}`
}

const EXPORT_LABEL = {
  csv: 'admin.audit.exportCsv',
  jsonl: 'admin.audit.exportJsonl',
  verifiable: 'admin.audit.exportVerifiable',
} as const

export function AuditPage({ search }: { search: AuditSearch }) {
  const { t } = useI18n()
  const { cursor, ...rest } = search
  const filters = definedOnly(rest) as AuditFilters
  const events = useQuery(auditQuery(filters, cursor))
  const items = events.data?.items ?? []
  const filtered = Object.keys(filters).length > 0
  const form = useFormOfAddress(filters)
  return (
    <Page
      title={t('admin.audit.title')}
      description={t('admin.audit.description')}
      actions={
        // One compact control: the three downloads do not push the first event down.
        <details className="download-menu" data-testid="audit-downloads">
          <summary className="button button-secondary">{t('admin.audit.download')}</summary>
          <ul className="download-menu-list" aria-label={t('admin.audit.export')}>
            {(['csv', 'jsonl', 'verifiable'] as const).map((format) => (
              <li key={format}>
                <a href={exportHref(filters, format)} download data-testid={`export-${format}`}>
                  {t(EXPORT_LABEL[format])}
                </a>
              </li>
            ))}
          </ul>
        </details>
      }
    >
      <AuditIntegrity
        newestAt={
          // Undefined until the first page is there; a later page does not judge the check.
          cursor !== undefined ? null : events.isSuccess ? (items[0]?.at ?? null) : undefined
        }
      />
      <AuditFiltersForm key={form.key} filters={form.shows} onNavigate={form.asked} />
      {events.isSuccess && items.length === 0 ? (
        <p className="empty" data-testid="audit-empty">
          {filtered ? t('admin.audit.noMatch') : t('admin.audit.empty')}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table audit-table" data-testid="audit">
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
                <AuditRow key={event.id} event={event} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} nextCursor={events.data?.next_cursor} label={t('admin.audit.pages')} />
    </Page>
  )
}

function AuditRow({ event }: { event: AuditEvent }) {
  const i18n = useI18n()
  const { t, dateTime, relative } = i18n
  const [open, setOpen] = useState(false)
  const facts = auditFacts(i18n, event.metadata)
  const typeName = (type: string) => {
    const key = `admin.audit.type.${type}`
    const text = t(key)
    return text === key ? type : text
  }
  return (
    <tr>
      <td data-label={t('admin.audit.at')} className="nowrap">
        <time dateTime={event.at} title={relative(event.at)}>
          {dateTime(event.at)}
        </time>
      </td>
      <td data-label={t('admin.audit.actor')} className="audit-actor">
        {event.actor_email ??
          (event.actor_id === null ? t('admin.audit.operator') : event.actor_id)}
      </td>
      <td data-label={t('admin.audit.action')} className="mono nowrap">
        {event.action}
      </td>
      <td data-label={t('admin.audit.target')} className="cell-wrap">
        {event.target_type === null ? (
          '—'
        ) : (
          // The id is on hover and in the accessible description; the name is what people
          // recognise.
          <span
            className="audit-target"
            title={`${event.target_type} ${event.target_id ?? ''}`}
            data-testid="audit-target"
          >
            <span className="muted">{typeName(event.target_type)}</span>{' '}
            {event.target_label ?? <span className="mono">{event.target_id}</span>}
          </span>
        )}
      </td>
      <td data-label={t('admin.audit.ip')} className="mono ip">
        {event.ip ?? '—'}
      </td>
      <td data-label={t('admin.audit.details')} className="metadata-cell">
        {Object.keys(event.metadata).length === 0 ? (
          '—'
        ) : (
          <>
            {facts.length > 0 && (
              <dl className="audit-facts">
                {facts.map(([label, text]) => (
                  <div key={label}>
                    <dt>{label}</dt>
                    <dd>{text}</dd>
                  </div>
                ))}
              </dl>
            )}
            <button
              type="button"
              className="button button-ghost button-small"
              aria-expanded={open}
              onClick={() => setOpen(!open)}
            >
              {t('admin.audit.rawJson')}
            </button>
            {open && (
              <pre className="mono audit-json">{JSON.stringify(event.metadata, null, 2)}</pre>
            )}
          </>
        )}
      </td>
    </tr>
  )
}

/**
 * The action filter: known actions grouped by area, each area itself a choice (the API matches by
 * prefix).
 */
function ActionPicker({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useI18n()
  return (
    <ComboBox
      className="field combobox"
      inputValue={value}
      onInputChange={onChange}
      allowsCustomValue
      allowsEmptyCollection
      menuTrigger="focus"
      onSelectionChange={(key) => {
        if (typeof key === 'string') onChange(key)
      }}
    >
      <Label>{t('admin.audit.action')}</Label>
      <Input className="combobox-input mono-text" spellCheck={false} data-testid="audit-action" />
      <Text slot="description" className="field-help">
        {t('admin.audit.actionHelp')}
      </Text>
      <Popover className="popover combobox-popover" placement="bottom start">
        <ListBox
          className="menu"
          renderEmptyState={() => <p className="menu-empty">{t('admin.audit.actionNone')}</p>}
        >
          {Object.entries(KNOWN_ACTIONS).map(([area, actions]) => (
            <ListBoxSection key={area} className="menu-section">
              <Header className="menu-header">{area}</Header>
              <ListBoxItem className="menu-item mono" id={area} textValue={area}>
                {t('admin.audit.actionArea', { area })}
              </ListBoxItem>
              {actions.map((action) => (
                <ListBoxItem key={action} className="menu-item mono" id={action} textValue={action}>
                  {action}
                </ListBoxItem>
              ))}
            </ListBoxSection>
          ))}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}

/** The same filters give the same text, whatever order the address or the form put them in. */
const filtersKey = (filters: AuditFilters) =>
  JSON.stringify(Object.fromEntries(Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1))))

interface FormOfAddress {
  /** Changes when the form is to be built anew from `shows`. */
  key: number
  shows: AuditFilters
  /** The form is about to move the address to `next` (`clear`: and empties itself now). */
  asked: (next: AuditFilters, clear: boolean) => void
}

/**
 * Which filters the form shows, and when it is built anew: when someone else moves the address
 * (back, a link), not when its own navigation lands — by then the person may be typing the next
 * filters, which a rebuild would drop. "Clear filters" empties the form at the click.
 */
function useFormOfAddress(filters: AuditFilters): FormOfAddress {
  const navigate = useNavigate()
  const current = filtersKey(filters)
  // `asked`: where the form's own navigation goes; `from`: the address it left.
  const [state, setState] = useState({
    key: 0,
    shows: filters,
    asked: null as string | null,
    from: current,
  })
  if (state.asked === current) {
    // The form's own navigation landed: it already shows these filters.
    setState({ ...state, shows: filters, asked: null })
  } else if (current !== (state.asked === null ? filtersKey(state.shows) : state.from)) {
    // Someone else moved the address (back, a link; or overtook the form's navigation).
    setState({ key: state.key + 1, shows: filters, asked: null, from: current })
  }
  return {
    key: state.key,
    shows: state.shows,
    asked: (next, clear) => {
      setState((previous) => ({
        key: clear ? previous.key + 1 : previous.key,
        shows: clear ? next : previous.shows,
        asked: filtersKey(next),
        from: current,
      }))
      void navigate({ to: '/admin/audit', search: next as AuditSearch as never })
    },
  }
}

function AuditFiltersForm({
  filters,
  onNavigate,
}: {
  filters: AuditFilters
  onNavigate: FormOfAddress['asked']
}) {
  const { t } = useI18n()
  const form = useRef<HTMLFormElement>(null)
  const [action, setAction] = useState(filters.action ?? '')
  const [rangeError, setRangeError] = useState<string | undefined>()
  const [actorId, setActorId] = useState<string | undefined>(filters.actor_id)
  const actor = useQuery({
    queryKey: ['admin', 'user', filters.actor_id],
    queryFn: () =>
      unwrap(client.GET('/api/admin/users/{id}', { params: { path: { id: filters.actor_id! } } })),
    enabled: filters.actor_id !== undefined,
    retry: false,
  })
  const ready = filters.actor_id === undefined || !actor.isPending
  return (
    <form
      ref={form}
      className="filters audit-filters"
      role="search"
      aria-label={t('admin.audit.filters')}
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        const values = formValues(event.currentTarget)
        const since = fromLocalDateTime(values.since)
        const until = fromLocalDateTime(values.until)
        // An empty window is a mistake, not a query: say so at the field instead of showing "no
        // events".
        if (since !== undefined && until !== undefined && since >= until) {
          setRangeError(t('admin.audit.rangeInvalid'))
          queueMicrotask(() => focusDateTimeField(form.current, 'until'))
          return
        }
        setRangeError(undefined)
        onNavigate(definedOnly({ action: action.trim(), actor_id: actorId, since, until }), false)
      }}
    >
      <ActionPicker value={action} onChange={setAction} />
      {ready && (
        <UserPicker
          name="actor"
          label={t('admin.audit.actor')}
          initialText={actor.data?.email ?? filters.actor_id ?? ''}
          onSelect={(user) => setActorId(user?.id)}
        />
      )}
      {/* In the console's language, whatever the browser's (ui/date-time-field.tsx). */}
      <DateTimeField name="since" label={t('admin.audit.since')} defaultValue={filters.since} />
      <DateTimeField
        name="until"
        label={t('admin.audit.until')}
        defaultValue={filters.until}
        error={rangeError}
      />
      <div className="filters-actions">
        <SubmitButton pending={false}>{t('admin.audit.apply')}</SubmitButton>
        <button type="button" className="button button-ghost" onClick={() => onNavigate({}, true)}>
          {t('admin.audit.clear')}
        </button>
      </div>
    </form>
  )
}
