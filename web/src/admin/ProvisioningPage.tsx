/**
 * Administration · Provisioning (SCIM): the SCIM base URL to paste into Okta or Entra ID,
 * the SCIM credentials (created with a name, the secret shown once with a copy button, revoked
 * behind a confirmation), the "adopt existing accounts by email" setting, and the last SCIM
 * requests with their outcome, so an administrator can see why a provisioning run failed.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'
import { TableHead } from '../ui/table-head'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { ReauthCancelled, useReauth } from '../ui/reauth-dialog'

const ADOPT_SETTING = 'scim.adopt_existing_accounts_by_email'

const fetchCredentials = () => unwrap(client.GET('/api/admin/scim/credentials'))
const fetchRequests = () => unwrap(client.GET('/api/admin/scim/requests'))
const credentialsQuery = queryOptions({
  queryKey: ['admin', 'scim', 'credentials'],
  queryFn: fetchCredentials,
})
const requestsQuery = queryOptions({
  queryKey: ['admin', 'scim', 'requests'],
  queryFn: fetchRequests,
})
const adoptQuery = queryOptions({
  queryKey: ['admin', 'setting', ADOPT_SETTING],
  queryFn: async () => {
    try {
      const setting = await unwrap(
        client.GET('/api/admin/settings/{key}', { params: { path: { key: ADOPT_SETTING } } }),
      )
      return setting.value === true
    } catch (error) {
      // Never set: the default, off.
      if (error instanceof ApiError && error.status === 404) return false
      throw error
    }
  },
})

type Credential = Awaited<ReturnType<typeof fetchCredentials>>['items'][number]
type ScimRequest = Awaited<ReturnType<typeof fetchRequests>>['items'][number]

export function ProvisioningPage() {
  const { t } = useI18n()
  const credentials = useQuery(credentialsQuery)
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)
  const baseUrl = credentials.data?.base_url
  return (
    <Page title={t('scim.title')} description={t('scim.description')}>
      {created !== null && (
        <section className="reveal" aria-labelledby="scim-created-heading">
          <h2 id="scim-created-heading">{t('scim.created', { name: created.name })}</h2>
          <p className="warning">{t('scim.once')}</p>
          <p>
            <code className="secret" data-testid="new-scim-token">
              {created.token}
            </code>
          </p>
          <div className="row">
            <CopyButton text={created.token} label={t('scim.copyToken')} />
            <button
              type="button"
              className="button button-primary"
              onClick={() => setCreated(null)}
            >
              {t('scim.stored')}
            </button>
          </div>
        </section>
      )}
      <section className="section" aria-labelledby="scim-url-heading">
        <h2 id="scim-url-heading">{t('scim.baseUrl')}</h2>
        <p className="muted">{t('scim.baseUrlHelp')}</p>
        {/* Reserved space: the URL arrives with the credentials' answer. */}
        <div className="copy-row scim-base-url">
          {baseUrl !== undefined && (
            <>
              <code className="mono callback-url" data-testid="scim-base-url">
                {baseUrl}
              </code>
              <CopyButton text={baseUrl} label={t('scim.copyUrl')} />
            </>
          )}
        </div>
      </section>
      <CreateCredential onCreated={setCreated} />
      <section className="section" aria-labelledby="scim-credentials-heading">
        <h2 id="scim-credentials-heading">{t('scim.credentials')}</h2>
        {credentials.isSuccess && credentials.data.items.length === 0 ? (
          <p className="empty">{t('scim.noCredentials')}</p>
        ) : (
          <table className="table" data-testid="scim-credentials">
            <TableHead
              columns={[t('field.name'), t('scim.createdAt'), t('scim.lastUsed')]}
              actions
            />
            <tbody>
              {(credentials.data?.items ?? []).map((credential) => (
                <CredentialRow key={credential.id} credential={credential} />
              ))}
            </tbody>
          </table>
        )}
      </section>
      <AdoptSetting />
      <RecentRequests />
    </Page>
  )
}

function CreateCredential({
  onCreated,
}: {
  onCreated: (created: { name: string; token: string }) => void
}) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['name'])
  // A credential provisions accounts: the administrator's own proof, asked in a dialog.
  const reauth = useReauth()
  const mutation = useMutation({
    mutationFn: (name: string) =>
      reauth.run((proof) =>
        unwrap(client.POST('/api/admin/scim/credentials', { body: { name, ...proof } })),
      ),
    onSuccess: async (data) => {
      state.form.current?.reset()
      onCreated({ name: data.name, token: data.token })
      await queryClient.invalidateQueries({ queryKey: ['admin', 'scim', 'credentials'] })
    },
    // One live credential per name (409): said at the name field, in the person's language.
    onError: (error) =>
      !(error instanceof ReauthCancelled) &&
      state.fail(
        error instanceof ApiError && error.reason === 'ALREADY_EXISTS'
          ? new ApiError(
              error.status,
              error.reason,
              t('scim.nameTaken'),
              [{ field: 'name', message: t('scim.nameTaken') }],
              null,
            )
          : error,
      ),
  })
  return (
    <section className="section" aria-labelledby="scim-create-heading">
      <h2 id="scim-create-heading">{t('scim.create')}</h2>
      <form
        ref={state.form}
        className="form-inline"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          mutation.mutate((formValues(event.currentTarget).name ?? '').trim())
        }}
      >
        <FormError>{state.general}</FormError>
        <TextField
          name="name"
          label={t('field.name')}
          help={t('scim.nameHelp')}
          maxLength={100}
          autoComplete="off"
          error={state.at('name')}
        />
        <SubmitButton pending={mutation.isPending}>{t('scim.createButton')}</SubmitButton>
        {reauth.dialog}
      </form>
    </section>
  )
}

function CredentialRow({ credential }: { credential: Credential }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const revoke = async () => {
    await unwrap(
      client.DELETE('/api/admin/scim/credentials/{id}', {
        params: { path: { id: credential.id } },
      }),
    )
    announce(t('scim.revoked', { name: credential.name }))
    await queryClient.invalidateQueries({ queryKey: ['admin', 'scim', 'credentials'] })
  }
  return (
    <tr data-testid={`scim-credential-${credential.name}`}>
      <td data-label={t('field.name')}>
        {credential.name}
        <div className="mono muted">{credential.prefix}…</div>
      </td>
      <td data-label={t('scim.createdAt')}>
        <RelativeTime iso={credential.created_at} />
      </td>
      <td data-label={t('scim.lastUsed')}>
        {credential.last_used_at === null ? (
          t('scim.neverUsed')
        ) : (
          <RelativeTime iso={credential.last_used_at} />
        )}
      </td>
      <td className="actions">
        <ConfirmDialog
          trigger={t('scim.revoke')}
          triggerLabel={t('scim.revokeNamed', { name: credential.name })}
          title={t('scim.revokeTitle', { name: credential.name })}
          confirmLabel={t('scim.revokeConfirm')}
          danger
          onConfirm={revoke}
        >
          <p>{t('scim.revokeText')}</p>
        </ConfirmDialog>
      </td>
    </tr>
  )
}

function AdoptSetting() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const adopt = useQuery(adoptQuery)
  const [error, setError] = useState<string | null>(null)
  // The choice being saved, shown at once (set in the same event as the click); null: the saved
  // state.
  const [choice, setChoice] = useState<boolean | null>(null)
  const mutation = useMutation({
    mutationFn: (on: boolean) =>
      on
        ? unwrap(
            client.PUT('/api/admin/settings/{key}', {
              params: { path: { key: ADOPT_SETTING } },
              body: { value: true },
            }),
          )
        : unwrap(
            client.DELETE('/api/admin/settings/{key}', {
              params: { path: { key: ADOPT_SETTING } },
            }),
          ),
    onSuccess: (_data, on) => {
      setError(null)
      announce(on ? t('scim.adoptOn') : t('scim.adoptOff'))
      queryClient.setQueryData(adoptQuery.queryKey, on)
      setChoice(null)
    },
    onError: () => {
      setChoice(null)
      setError(t('scim.adoptFailed'))
    },
  })
  return (
    <section className="section" aria-labelledby="scim-adopt-heading">
      <h2 id="scim-adopt-heading">{t('scim.adoptHeading')}</h2>
      <FormError>{error}</FormError>
      <div className="checkbox">
        <input
          type="checkbox"
          id="scim-adopt"
          checked={choice ?? adopt.data ?? false}
          disabled={!adopt.isSuccess}
          aria-describedby="scim-adopt-help"
          onChange={(event) => {
            if (mutation.isPending) return
            const on = event.currentTarget.checked
            setChoice(on)
            mutation.mutate(on)
          }}
        />
        <label htmlFor="scim-adopt">{t('scim.adopt')}</label>
      </div>
      <p id="scim-adopt-help" className="field-help">
        {t('scim.adoptHelp')}
      </p>
    </section>
  )
}

function RecentRequests() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const requests = useQuery(requestsQuery)
  const items = requests.data?.items ?? []
  // The credentials' "last used" moves with the requests: both are fetched again.
  const refresh = () => {
    void requests.refetch()
    void queryClient.invalidateQueries({ queryKey: credentialsQuery.queryKey })
  }
  return (
    <section className="section" aria-labelledby="scim-requests-heading">
      <div className="section-header">
        <h2 id="scim-requests-heading">{t('scim.requests')}</h2>
        <button
          type="button"
          className="button button-secondary"
          onClick={refresh}
          disabled={requests.isFetching}
        >
          {t('scim.refresh')}
        </button>
      </div>
      <p className="muted">{t('scim.requestsHelp')}</p>
      {requests.isSuccess && items.length === 0 ? (
        <p className="empty">{t('scim.noRequests')}</p>
      ) : (
        <table className="table" data-testid="scim-requests">
          <TableHead
            columns={[t('scim.time'), t('scim.request'), t('scim.outcome'), t('scim.credential')]}
          />
          <tbody>
            {items.map((request) => (
              <RequestRow key={request.id} request={request} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function RequestRow({ request }: { request: ScimRequest }) {
  const { t, language } = useI18n()
  const failed = request.status >= 400
  return (
    <tr data-testid="scim-request" data-status={request.status}>
      <td data-label={t('scim.time')}>
        <RelativeTime iso={request.created_at} />
      </td>
      <td data-label={t('scim.request')} className="mono callback-url">
        {request.method} {request.path}
      </td>
      <td data-label={t('scim.outcome')}>
        {/* Said in words, not by colour alone. */}
        <span className={failed ? 'scim-failed' : undefined}>
          {request.status} {failed ? t('scim.failed') : t('scim.succeeded')}
          {request.scim_type !== null && ` (${request.scim_type})`}
        </span>
        {request.status === 409 && request.scim_type === 'uniqueness' && (
          <p className="field-help" data-testid="scim-conflict">
            {request.subject !== null && (
              <>
                {t(
                  request.path.startsWith('/scim/v2/Groups')
                    ? 'scim.displayNameTaken'
                    : 'scim.userNameTaken',
                  { name: request.subject },
                )}{' '}
              </>
            )}
            {t('scim.conflictHint')}{' '}
            <a
              href="#scim-adopt"
              onClick={(event) => {
                // To the setting itself, focused, so it can be switched at once.
                event.preventDefault()
                const setting = document.getElementById('scim-adopt')
                setting?.scrollIntoView({ block: 'center' })
                setting?.focus()
              }}
            >
              {t('scim.adopt')}
            </a>
          </p>
        )}
        <div className="muted">
          {new Intl.NumberFormat(language, { style: 'unit', unit: 'millisecond' }).format(
            request.duration_ms,
          )}
        </div>
      </td>
      <td data-label={t('scim.credential')}>{request.credential_name ?? t('scim.noCredential')}</td>
    </tr>
  )
}
