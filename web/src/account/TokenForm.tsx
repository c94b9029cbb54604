/**
 * The token creation form: name, expiry (presets within the instance's maximum, or a
 * date), organization boundary, and per area "no access / read / read and write" with the area's
 * operations from the OpenAPI document; a summary line says what the token will be able to do.
 */
import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { FormError, SelectField, SubmitButton, TextField } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import {
  AREAS,
  accessesOf,
  fetchCatalogue,
  isSensitiveArea,
  permissionsOf,
  type Access,
  type Area,
} from './token-catalogue'

export interface Replacing {
  id: string
  name: string
}

type Boundary = 'personal' | 'selected' | 'all'
type Policy = {
  default_lifetime_days: number
  max_lifetime_days: number
  legacy_refused_from: string | null
}

const PRESET_DAYS = [7, 30, 90, 365]
const DAY_MS = 86_400_000
const catalogueQuery = {
  queryKey: ['token-catalogue'],
  queryFn: fetchCatalogue,
  staleTime: Infinity,
}
const myOrganizationsQuery = {
  queryKey: ['organizations', 'token-boundary'],
  queryFn: () => unwrap(client.GET('/api/organizations', { params: { query: { limit: 100 } } })),
}

interface CreatedToken {
  name: string
  token: string
}

export function TokenForm({
  policy,
  isAdmin,
  replacing,
  onStopReplacing,
  onCreated,
}: {
  policy: Policy
  isAdmin: boolean
  replacing: Replacing | null
  onStopReplacing: () => void
  onCreated: (token: CreatedToken) => Promise<void>
}) {
  const { t, dateTime } = useI18n()
  const catalogue = useQuery(catalogueQuery)
  const organizations = useQuery(myOrganizationsQuery)
  const formError = useFormError([
    'name',
    'permissions',
    'expires_in_days',
    'expires_at',
    'organization_ids',
  ])
  const presets = PRESET_DAYS.filter((days) => days <= policy.max_lifetime_days)
  const [name, setName] = useState(replacing?.name ?? '')
  const [expiry, setExpiry] = useState<string>(String(policy.default_lifetime_days))
  const [date, setDate] = useState('')
  const [boundary, setBoundary] = useState<Boundary>(replacing !== null ? 'all' : 'personal')
  const [picked, setPicked] = useState<string[]>([])
  const [access, setAccess] = useState<Partial<Record<Area, Access>>>({})
  const areas = AREAS.filter((area) => isAdmin || !area.startsWith('admin.'))
  // The form appears on the person's request (a new token, a replacement), below the list: its
  // first field takes the focus when the form is there, however long its policy took to load.
  const formElement = formError.form
  useEffect(() => {
    formElement.current?.querySelector<HTMLInputElement>('input[name="name"]')?.focus()
  }, [formElement])

  const expiresAt =
    expiry === 'date'
      ? date === ''
        ? null
        : new Date(`${date}T23:59:59`)
      : new Date(Date.now() + Number(expiry) * DAY_MS)
  const permissions = permissionsOf(access)

  const create = useMutation({
    mutationFn: () =>
      unwrap(
        client.POST('/api/tokens', {
          body: {
            name,
            permissions,
            organization_boundary: boundary,
            ...(boundary === 'selected' && { organization_ids: picked }),
            ...(expiry === 'date'
              ? { expires_at: expiresAt?.toISOString() ?? '' }
              : { expires_in_days: Number(expiry) }),
          },
        }),
      ),
    onSuccess: async (data) => {
      setName('')
      setAccess({})
      await onCreated({ name: data.name, token: data.token })
    },
    onError: formError.fail,
  })

  return (
    <section className="section" aria-labelledby="create-heading">
      <h2 id="create-heading">{t('tokens.new')}</h2>
      {replacing !== null && (
        <p className="warning" role="status">
          {t('tokens.replacing', { name: replacing.name })}{' '}
          <button type="button" className="button button-secondary" onClick={onStopReplacing}>
            {t('tokens.stopReplacing')}
          </button>
        </p>
      )}
      <form
        ref={formError.form}
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          formError.clear()
          create.mutate()
        }}
      >
        <FormError>{formError.general}</FormError>
        <TextField
          name="name"
          label={t('tokens.name')}
          help={t('tokens.nameHelp')}
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={formError.at('name')}
        />
        <SelectField
          name="expiry"
          label={t('tokens.expiry')}
          value={expiry}
          onChange={(event) => setExpiry(event.currentTarget.value)}
          options={[
            ...presets.map((days) => ({
              value: String(days),
              label: t('tokens.days', { count: days }),
            })),
            { value: 'date', label: t('tokens.expiryOnDate') },
          ]}
          error={formError.at('expires_in_days')}
        />
        {expiry === 'date' && (
          <TextField
            name="expires_at"
            type="date"
            label={t('tokens.expiryDate')}
            help={t('tokens.expiryHelp', { days: policy.max_lifetime_days })}
            value={date}
            min={new Date(Date.now() + DAY_MS).toISOString().slice(0, 10)}
            max={new Date(Date.now() + policy.max_lifetime_days * DAY_MS)
              .toISOString()
              .slice(0, 10)}
            onChange={(event) => setDate(event.currentTarget.value)}
            error={formError.at('expires_at')}
          />
        )}

        <fieldset className="field">
          <legend>{t('tokens.boundary')}</legend>
          {(['personal', 'selected', 'all'] as const).map((value) => (
            <div className="radio" key={value}>
              <input
                type="radio"
                id={`boundary-${value}`}
                name="organization_boundary"
                value={value}
                checked={boundary === value}
                onChange={() => setBoundary(value)}
              />
              <label htmlFor={`boundary-${value}`}>{t(`tokens.boundary.${value}`)}</label>
            </div>
          ))}
          {boundary === 'selected' && (
            <fieldset className="field nested">
              <legend>{t('tokens.boundary.pick')}</legend>
              {(organizations.data?.items ?? []).length === 0 && (
                <p className="muted">{t('tokens.boundary.noOrgs')}</p>
              )}
              {(organizations.data?.items ?? []).map((organization) => (
                <div className="checkbox" key={organization.id}>
                  <input
                    type="checkbox"
                    id={`org-${organization.id}`}
                    checked={picked.includes(organization.id)}
                    onChange={(event) => {
                      const on = event.currentTarget.checked
                      setPicked((current) =>
                        on
                          ? [...current, organization.id]
                          : current.filter((id) => id !== organization.id),
                      )
                    }}
                  />
                  <label htmlFor={`org-${organization.id}`}>{organization.name}</label>
                </div>
              ))}
              {formError.at('organization_ids') && (
                <p className="field-error">{formError.at('organization_ids')}</p>
              )}
            </fieldset>
          )}
        </fieldset>

        <fieldset className="field">
          <legend>{t('tokens.permissions')}</legend>
          <p className="field-help">{t('tokens.permissionsHelp')}</p>
          {areas.map((area) => {
            const operations = catalogue.data?.[area] ?? []
            return (
              <div key={area} className="token-area" data-testid={`area-${area}`}>
                <SelectField
                  name={`access-${area}`}
                  label={t(`tokens.area.${area}`)}
                  value={access[area] ?? 'none'}
                  onChange={(event) => {
                    const value = event.currentTarget.value as Access
                    setAccess((current) => ({ ...current, [area]: value }))
                  }}
                  options={accessesOf(area).map((value) => ({
                    value,
                    label: t(`tokens.access.${value}`),
                  }))}
                />
                {isSensitiveArea(area) && (
                  <p className="warning" data-testid="account-security-warning">
                    {t('tokens.accountSecurityWarning')}
                  </p>
                )}
                {operations.length > 0 && (
                  <details>
                    <summary>{t('tokens.operations', { count: operations.length })}</summary>
                    <ul className="token-operations">
                      {operations.map((operation) => (
                        <li key={`${operation.method} ${operation.path}`}>
                          <span className="mono">
                            {operation.method} {operation.path}
                          </span>{' '}
                          — {operation.summary}{' '}
                          <span className="muted">
                            ({t(operation.kind === 'read' ? 'tokens.opRead' : 'tokens.opWrite')})
                          </span>
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
              </div>
            )
          })}
          {formError.at('permissions') && (
            <p className="field-error">{formError.at('permissions')}</p>
          )}
        </fieldset>
        <p className="token-summary" data-testid="token-summary" aria-live="polite">
          <strong>{t('tokens.summary.label')}</strong>{' '}
          {summaryOf(t, access, boundary, picked.length, expiresAt, dateTime)}
        </p>
        <p className="muted">{t('tokens.sessionOnlyNote')}</p>
        <SubmitButton pending={create.isPending}>{t('tokens.create')}</SubmitButton>
      </form>
    </section>
  )
}

function summaryOf(
  t: (key: string, params?: Record<string, string | number>) => string,
  access: Partial<Record<Area, Access>>,
  boundary: Boundary,
  picked: number,
  expiresAt: Date | null,
  dateTime: (iso: string) => string,
): string {
  const parts = AREAS.filter((area) => (access[area] ?? 'none') !== 'none').map((area) =>
    t(access[area] === 'write' ? 'tokens.summary.write' : 'tokens.summary.read', {
      area: t(`tokens.area.${area}`),
    }),
  )
  if (parts.length === 0) return t('tokens.summary.nothing')
  const scope =
    boundary === 'selected'
      ? t('tokens.summary.scope.selected', { count: picked })
      : t(`tokens.summary.scope.${boundary}`)
  const until =
    expiresAt === null || Number.isNaN(expiresAt.getTime())
      ? ''
      : `, ${t('tokens.summary.until', { date: dateTime(expiresAt.toISOString()) })}`
  return `${parts.join('; ')} — ${scope}${until}.`
}
