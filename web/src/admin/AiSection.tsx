/**
 * Settings · AI suggestions: the OpenAI-compatible provider (base URL, write-only API key, model
 * chosen from the list the provider answers) and the switch that offers suggestions to users,
 * with what users get today (GET /api/config/ai-suggestions).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { useFormError } from '../ui/use-form-error'
import { aiQuery, type AiSettings } from './queries'
import { CheckboxField } from './CheckboxField'
import { changedFields, textOrNull, WriteOnlyField, writeOnlyValue } from './write-only'

const FIELDS = ['enabled', 'base_url', 'api_key', 'model'] as const
const flagsQuery = {
  queryKey: ['ai-suggestions'],
  queryFn: () => unwrap(client.GET('/api/config/ai-suggestions')),
}
/**
 * The API's largest page; a provider with more models shows the first 200 (sorted by id) and the
 * field still takes any name.
 */
const MODEL_LIMIT = 200

export function AiSection() {
  const { t } = useI18n()
  const ai = useQuery(aiQuery)
  const flags = useQuery(flagsQuery)
  return (
    <section className="section" id="ai" aria-labelledby="ai-heading">
      <h2 id="ai-heading">{t('admin.ai.title')}</h2>
      <p className="muted">{t('admin.ai.description')}</p>
      {flags.data !== undefined && (
        <p
          className={flags.data.available ? 'state state-good' : 'state state-weak'}
          data-testid="ai-flags"
        >
          <strong>
            {flags.data.available ? t('admin.ai.available') : t('admin.ai.unavailable')}
          </strong>{' '}
          {flags.data.available ? t('admin.ai.availableHelp') : t('admin.ai.unavailableHelp')}
        </p>
      )}
      {ai.data === undefined ? (
        <p className="skeleton" aria-hidden="true" />
      ) : (
        <AiForm key={JSON.stringify(ai.data)} ai={ai.data} />
      )}
    </section>
  )
}

function AiForm({ ai }: { ai: AiSettings }) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const state = useFormError(FIELDS)
  const listId = useId()
  const [wantModels, setWantModels] = useState(false)
  const models = useQuery({
    queryKey: ['admin', 'ai-models'],
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/settings/ai/models', { params: { query: { limit: MODEL_LIMIT } } }),
      ),
    enabled: wantModels,
    retry: false,
  })
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      unwrap(client.PUT('/api/admin/settings/ai', { body })),
    onSuccess: async (data) => {
      queryClient.setQueryData(aiQuery.queryKey, data)
      announce(t('admin.ai.saved'))
      await queryClient.invalidateQueries({ queryKey: ['ai-suggestions'] })
      await queryClient.invalidateQueries({ queryKey: ['admin', 'ai-models'] })
    },
    onError: state.fail,
  })
  const modelItems = models.data?.items ?? []
  // What the provider's model list said: how many, or why there is none.
  const modelHelp = () => {
    if (models.isSuccess) return t('admin.ai.modelsFound', { count: modelItems.length })
    if (models.error === null) return t('admin.ai.modelHelp')
    const shown = describeError(models.error, [], i18n)
    if (shown.reason === 'UPSTREAM_FAILED')
      return t('admin.ai.modelsFailed', { detail: models.error.message })
    if (shown.reason === 'NOT_CONFIGURED') return t('admin.ai.modelsNeedKey')
    return shown.text
  }
  return (
    <form
      ref={state.form}
      className="stack"
      aria-label={t('admin.ai.title')}
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        const values = formValues(event.currentTarget)
        const apiKey = writeOnlyValue(values, 'api_key')
        const body = {
          ...changedFields(ai, {
            enabled: values.enabled === 'on',
            base_url: (values.base_url ?? '').trim(),
            model: textOrNull(values.model),
          }),
          ...(apiKey !== undefined && { api_key: apiKey }),
        }
        if (Object.keys(body).length === 0) return announce(t('admin.settings.unchanged'))
        save.mutate(body)
      }}
    >
      <FormError>{state.general}</FormError>
      <CheckboxField
        name="enabled"
        label={t('admin.ai.enabled')}
        help={t('admin.ai.enabledHelp')}
        defaultChecked={ai.enabled}
      />
      <TextField
        name="base_url"
        type="url"
        label={t('admin.ai.baseUrl')}
        help={t('admin.ai.baseUrlHelp')}
        defaultValue={ai.base_url}
        spellCheck={false}
        error={state.at('base_url')}
      />
      <WriteOnlyField
        name="api_key"
        label={t('admin.ai.apiKey')}
        clearLabel={t('admin.ai.apiKeyClear')}
        isSet={ai.api_key_set}
        error={state.at('api_key')}
      />
      <TextField
        name="model"
        label={t('admin.ai.model')}
        help={modelHelp()}
        defaultValue={ai.model ?? ''}
        list={listId}
        autoComplete="off"
        spellCheck={false}
        error={state.at('model')}
      />
      <datalist id={listId}>
        {modelItems.map((model) => (
          <option key={model.id} value={model.id} />
        ))}
      </datalist>
      <div className="row">
        <button
          type="button"
          className="button button-secondary"
          aria-busy={models.isFetching || undefined}
          onClick={() => (wantModels ? void models.refetch() : setWantModels(true))}
        >
          {t('admin.ai.loadModels')}
        </button>
        <SubmitButton pending={save.isPending}>{t('admin.ai.save')}</SubmitButton>
      </div>
    </form>
  )
}
