/**
 * Administration · one identity provider, new or existing: the OIDC client settings, the client
 * secret write-only, and the callback URL to register at the provider, with a copy button.
 *
 * A new provider starts from a preset (Google, Microsoft Entra ID, Okta, Keycloak or a
 * generic one); its callback URL shows while the key is typed, before saving; and every save with a
 * new or changed issuer first fetches and checks the issuer's discovery document
 * (POST /api/oidc-providers/check), naming what is wrong at the issuer field.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useEffect, useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'
import { useFormError } from '../ui/use-form-error'
import { unlessCancelled, useReauth } from '../ui/reauth-dialog'
import { providerQuery, type OidcProvider } from './queries'
import { CheckboxField } from './CheckboxField'
import { changedFields, WriteOnlyField, writeOnlyValue } from './write-only'
import { useDebounced } from '../links/use-debounced'

const FIELDS = [
  'provider_key',
  'name',
  'issuer_url',
  'client_id',
  'client_secret',
  'scopes',
  'auto_create_users',
  'default_role',
  'enabled',
  'trust_email',
] as const

type ProviderFields = Pick<
  OidcProvider,
  | 'provider_key'
  | 'name'
  | 'issuer_url'
  | 'client_id'
  | 'scopes'
  | 'auto_create_users'
  | 'default_role'
  | 'enabled'
  | 'trust_email'
>

const NEW_PROVIDER: ProviderFields = {
  provider_key: '',
  name: '',
  issuer_url: '',
  client_id: '',
  scopes: ['openid', 'email', 'profile'],
  auto_create_users: false,
  default_role: 'user',
  enabled: true,
  trust_email: false,
}

/**
 * Where each kind of provider keeps its discovery document; the parts in braces are the
 * administrator's own (tenant, domain, realm). Google is complete as it is.
 */
const PRESETS = [
  {
    id: 'google',
    name: 'Google',
    provider_key: 'google',
    issuer_url: 'https://accounts.google.com',
  },
  {
    id: 'entra',
    name: 'Microsoft Entra ID',
    provider_key: 'entra',
    issuer_url: 'https://login.microsoftonline.com/{tenant-id}/v2.0',
  },
  {
    id: 'okta',
    name: 'Okta',
    provider_key: 'okta',
    issuer_url: 'https://{your-domain}.okta.com/oauth2/default',
  },
  {
    id: 'keycloak',
    name: 'Keycloak',
    provider_key: 'keycloak',
    issuer_url: 'https://{keycloak-host}/realms/{realm}',
  },
  { id: 'generic', name: '', provider_key: '', issuer_url: '' },
] as const

/**
 * Fetches and checks the issuer's discovery document; a failure becomes the issuer field's error.
 */
async function checkIssuer(
  issuerUrl: string,
  t: (key: string, params?: Record<string, string>) => string,
): Promise<void> {
  // Empty or not a web address: the save itself names that, together with every other invalid
  // field.
  if (!/^https?:\/\/./i.test(issuerUrl)) return
  const answer = await unwrap(
    client.POST('/api/oidc-providers/check', { body: { issuer_url: issuerUrl } }),
  )
  if (answer.issuer === null || answer.issuer.ok) return
  const message = t('admin.provider.issuerCheckFailed', {
    problem: t(`admin.provider.issuerProblem.${answer.issuer.problem}`),
    detail: answer.issuer.detail,
  })
  throw new ApiError(400, 'VALIDATION_FAILED', message, [{ field: 'issuer_url', message }], null)
}

/** The callback URL for the key being typed, from the API (it knows the public address). */
function useCallbackPreview(providerKey: string): string | null {
  const key = useDebounced(providerKey.trim(), 250)
  const [url, setUrl] = useState<string | null>(null)
  useEffect(() => {
    let active = true
    if (!/^[a-z0-9][a-z0-9_-]{0,49}$/.test(key)) {
      setUrl(null)
      return
    }
    client.POST('/api/oidc-providers/check', { body: { provider_key: key } }).then(
      ({ data }) => active && setUrl(data?.callback_url ?? null),
      () => active && setUrl(null),
    )
    return () => {
      active = false
    }
  }, [key])
  return url
}

function CallbackUrl({ url }: { url: string }) {
  const { t } = useI18n()
  return (
    <div className="copy-row">
      <code className="secret callback-url" data-testid="callback-url">
        {url}
      </code>
      <CopyButton text={url} label={t('admin.provider.copy')} />
    </div>
  )
}

function fieldsOf(values: Record<string, string>): ProviderFields {
  return {
    provider_key: (values.provider_key ?? '').trim(),
    name: values.name ?? '',
    issuer_url: (values.issuer_url ?? '').trim(),
    client_id: values.client_id ?? '',
    scopes: (values.scopes ?? '').split(/\s+/).filter(Boolean),
    auto_create_users: values.auto_create_users === 'on',
    default_role: values.default_role === 'admin' ? 'admin' : 'user',
    enabled: values.enabled === 'on',
    trust_email: values.trust_email === 'on',
  }
}

export function NewProviderPage() {
  const { t } = useI18n()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const state = useFormError(FIELDS)
  const [preset, setPreset] = useState<(typeof PRESETS)[number]['id']>('generic')
  const [providerKey, setProviderKey] = useState('')
  const callbackUrl = useCallbackPreview(providerKey)
  const chosen = PRESETS.find((entry) => entry.id === preset)!
  const reauth = useReauth()
  const create = useMutation({
    mutationFn: async (body: ProviderFields & { client_secret: string | null }) => {
      await checkIssuer(body.issuer_url, t)
      // A provider signs people in: the administrator's own proof, asked in a dialog.
      return reauth.run((proof) =>
        unwrap(client.POST('/api/oidc-providers', { body: { ...body, ...proof } })),
      )
    },
    onSuccess: async (provider) => {
      announce(t('admin.provider.created', { name: provider.name }))
      queryClient.setQueryData(providerQuery(provider.id).queryKey, provider)
      await queryClient.invalidateQueries({ queryKey: ['admin', 'providers'] })
      void navigate({ to: '/admin/providers/$providerId', params: { providerId: provider.id } })
    },
    onError: unlessCancelled(state.fail),
  })
  return (
    <Page
      title={t('admin.provider.newTitle')}
      description={t('admin.provider.newDescription')}
      actions={<BackLink />}
    >
      <section className="section" aria-labelledby="preset-heading">
        <h2 id="preset-heading">{t('admin.provider.presets')}</h2>
        <p className="muted">{t(`admin.provider.presetHelp.${preset}`)}</p>
        <div
          className="provider-presets"
          role="group"
          aria-labelledby="preset-heading"
          data-testid="provider-presets"
        >
          {PRESETS.map((entry) => (
            <button
              key={entry.id}
              type="button"
              className={
                entry.id === preset
                  ? 'button button-primary button-small'
                  : 'button button-secondary button-small'
              }
              aria-pressed={entry.id === preset}
              onClick={() => {
                setPreset(entry.id)
                setProviderKey(entry.provider_key)
              }}
            >
              {entry.id === 'generic' ? t('admin.provider.presetGeneric') : entry.name}
            </button>
          ))}
        </div>
      </section>
      <section className="section" aria-labelledby="callback-heading">
        <h2 id="callback-heading">{t('admin.providers.callback')}</h2>
        <p className="muted">{t('admin.provider.callbackHelp')}</p>
        {callbackUrl === null ? (
          <p className="muted">{t('admin.provider.callbackAfterKey')}</p>
        ) : (
          <CallbackUrl url={callbackUrl} />
        )}
      </section>
      <ProviderForm
        key={preset}
        state={state}
        provider={{
          ...NEW_PROVIDER,
          name: chosen.name,
          provider_key: chosen.provider_key,
          issuer_url: chosen.issuer_url,
        }}
        onKeyChange={setProviderKey}
        pending={create.isPending}
        submitLabel={t('admin.provider.create')}
        onSubmit={(values) =>
          create.mutate({
            ...fieldsOf(values),
            client_secret: values.public_client === 'on' ? null : (values.client_secret ?? ''),
          })
        }
      >
        <NewSecretField error={state.at('client_secret')} />
      </ProviderForm>
      {reauth.dialog}
    </Page>
  )
}

export function ProviderPage({ providerId }: { providerId: string }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const provider = useQuery(providerQuery(providerId))
  const state = useFormError(FIELDS)
  const reauth = useReauth()
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      if (typeof body.issuer_url === 'string') await checkIssuer(body.issuer_url, t)
      // A new issuer or trust asks for the administrator's own proof (the API says when).
      return reauth.run((proof) =>
        unwrap(
          client.PATCH('/api/oidc-providers/{id}', {
            params: { path: { id: providerId } },
            body: { ...body, ...proof },
          }),
        ),
      )
    },
    onSuccess: async (data) => {
      announce(t('admin.provider.saved'))
      queryClient.setQueryData(providerQuery(providerId).queryKey, data)
      await queryClient.invalidateQueries({ queryKey: ['admin', 'providers'] })
    },
    onError: unlessCancelled(state.fail),
  })
  if (provider.error) throw provider.error
  const data = provider.data
  const remove = async () => {
    await unwrap(
      client.DELETE('/api/oidc-providers/{id}', { params: { path: { id: providerId } } }),
    )
    announce(t('admin.provider.deleted', { name: data?.name ?? '' }))
    queryClient.removeQueries({ queryKey: providerQuery(providerId).queryKey })
    await queryClient.invalidateQueries({ queryKey: ['admin', 'providers'] })
    void navigate({ to: '/admin/providers' })
  }
  return (
    <Page
      title={data?.name ?? t('admin.providers.title')}
      description={t('admin.provider.description')}
      actions={<BackLink />}
    >
      {data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <>
          <section className="section" aria-labelledby="callback-heading">
            <h2 id="callback-heading">{t('admin.providers.callback')}</h2>
            <p className="muted">{t('admin.provider.callbackHelp')}</p>
            <CallbackUrl url={data.callback_url} />
          </section>
          <ProviderForm
            key={data.updated_at}
            state={state}
            provider={data}
            pending={save.isPending}
            submitLabel={t('admin.provider.save')}
            onSubmit={(values) => {
              const secret = writeOnlyValue(values, 'client_secret')
              const body = {
                ...changedFields(data, fieldsOf(values)),
                ...(secret !== undefined && { client_secret: secret }),
              }
              // Arrays compare by content: an unchanged scope list is not sent.
              if (JSON.stringify(body.scopes) === JSON.stringify(data.scopes)) delete body.scopes
              if (Object.keys(body).length === 0) return announce(t('admin.settings.unchanged'))
              save.mutate(body)
            }}
          >
            <WriteOnlyField
              name="client_secret"
              label={t('admin.provider.secret')}
              clearLabel={t('admin.provider.secretClear')}
              isSet={data.client_secret_set}
              error={state.at('client_secret')}
            />
          </ProviderForm>
          {reauth.dialog}
          <section className="section danger-zone" aria-labelledby="delete-provider-heading">
            <h2 id="delete-provider-heading">{t('admin.provider.delete')}</h2>
            <p className="muted">{t('admin.provider.deleteHelp')}</p>
            <ConfirmDialog
              trigger={t('admin.provider.delete')}
              title={t('admin.provider.deleteTitle', { name: data.name })}
              confirmLabel={t('admin.provider.delete')}
              danger
              onConfirm={remove}
            >
              <p>{t('admin.provider.deleteText')}</p>
            </ConfirmDialog>
          </section>
        </>
      )}
    </Page>
  )
}

function BackLink() {
  const { t } = useI18n()
  return (
    <Link to="/admin/providers" className="back-link">
      {t('admin.providers.back')}
    </Link>
  )
}

function NewSecretField({ error }: { error?: string | undefined }) {
  const { t } = useI18n()
  const id = useId()
  return (
    <div className="write-only">
      <TextField
        name="client_secret"
        type="password"
        label={t('admin.provider.secret')}
        help={t('admin.provider.secretHelp')}
        autoComplete="new-password"
        error={error}
      />
      <div className="checkbox">
        <input type="checkbox" id={id} name="public_client" />
        <label htmlFor={id}>{t('admin.provider.publicClient')}</label>
      </div>
    </div>
  )
}

function ProviderForm({
  state,
  provider,
  pending,
  submitLabel,
  onSubmit,
  onKeyChange,
  children,
}: {
  state: ReturnType<typeof useFormError>
  provider: ProviderFields
  pending: boolean
  submitLabel: string
  onSubmit: (values: Record<string, string>) => void
  /** The key as it is typed (the new-provider page shows its callback URL before saving). */
  onKeyChange?: (key: string) => void
  children: React.ReactNode
}) {
  const { t } = useI18n()
  return (
    <section className="section" aria-labelledby="provider-form-heading">
      <h2 id="provider-form-heading">{t('admin.provider.settings')}</h2>
      <form
        ref={state.form}
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          state.clear()
          onSubmit(formValues(event.currentTarget))
        }}
      >
        <FormError>{state.general}</FormError>
        <TextField
          name="name"
          label={t('field.name')}
          help={t('admin.provider.nameHelp')}
          defaultValue={provider.name}
          autoComplete="off"
          error={state.at('name')}
        />
        <TextField
          name="provider_key"
          label={t('admin.providers.key')}
          help={t('admin.provider.keyHelp')}
          defaultValue={provider.provider_key}
          onChange={(event) => onKeyChange?.(event.currentTarget.value)}
          autoComplete="off"
          spellCheck={false}
          className="mono-input"
          error={state.at('provider_key')}
        />
        <TextField
          name="issuer_url"
          type="url"
          label={t('admin.provider.issuer')}
          help={t('admin.provider.issuerHelp')}
          defaultValue={provider.issuer_url}
          spellCheck={false}
          error={state.at('issuer_url')}
        />
        <TextField
          name="client_id"
          label={t('admin.provider.clientId')}
          defaultValue={provider.client_id}
          autoComplete="off"
          spellCheck={false}
          error={state.at('client_id')}
        />
        {children}
        <TextField
          name="scopes"
          label={t('admin.provider.scopes')}
          help={t('admin.provider.scopesHelp')}
          defaultValue={provider.scopes.join(' ')}
          autoComplete="off"
          spellCheck={false}
          error={state.at('scopes')}
        />
        <CheckboxField
          name="enabled"
          label={t('admin.provider.enabled')}
          help={t('admin.provider.enabledHelp')}
          defaultChecked={provider.enabled}
        />
        <CheckboxField
          name="auto_create_users"
          label={t('admin.provider.autoCreate')}
          help={t('admin.provider.autoCreateHelp')}
          defaultChecked={provider.auto_create_users}
        />
        <SelectField
          name="default_role"
          label={t('admin.provider.defaultRole')}
          defaultValue={provider.default_role}
          options={[
            { value: 'user', label: t('admin.users.member') },
            { value: 'admin', label: t('admin.users.admin') },
          ]}
          error={state.at('default_role')}
        />
        <CheckboxField
          name="trust_email"
          label={t('admin.provider.trustEmail')}
          help={t('admin.provider.trustEmailHelp')}
          defaultChecked={provider.trust_email}
        />
        <SubmitButton pending={pending}>{submitLabel}</SubmitButton>
      </form>
    </section>
  )
}
