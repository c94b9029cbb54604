/**
 * Administration · Settings · API tokens: the longest lifetime a new token may have, and
 * the day from which legacy full-access tokens are refused.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { TextField } from '../ui/form'
import { SettingsForm, SettingsSection } from '../ui/settings-section'
import { useFormError } from '../ui/use-form-error'

const settingsQuery = {
  queryKey: ['api-token-settings'],
  queryFn: () => unwrap(client.GET('/api/admin/settings/api-tokens')),
}

export function ApiTokenSettingsSection() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const settings = useQuery(settingsQuery)
  const form = useFormError(['max_lifetime_days', 'refuse_legacy_from'])
  const [refuse, setRefuse] = useState<boolean | null>(null)
  const save = useMutation({
    mutationFn: (body: { max_lifetime_days: number; refuse_legacy_from: string | null }) =>
      unwrap(client.PUT('/api/admin/settings/api-tokens', { body })),
    onSuccess: async (data) => {
      queryClient.setQueryData(settingsQuery.queryKey, data)
      setRefuse(null)
      announce(t('admin.tokens.saved'))
      await queryClient.invalidateQueries({ queryKey: ['token-policy'] })
    },
    onError: form.fail,
  })
  const data = settings.data
  const refusing = refuse ?? data?.refuse_legacy_from != null
  return (
    <SettingsSection
      id="api-tokens"
      title={t('admin.tokens.title')}
      description={t('admin.tokens.description')}
      loading={data === undefined}
    >
      {data !== undefined && (
        <SettingsForm
          form={form}
          pending={save.isPending}
          submitLabel={t('admin.tokens.save')}
          onSave={(values) => {
            const from = values.refuse_legacy_from ?? ''
            save.mutate({
              max_lifetime_days: Number(values.max_lifetime_days),
              refuse_legacy_from:
                refusing && from !== '' ? new Date(`${from}T00:00:00`).toISOString() : null,
            })
          }}
        >
          <TextField
            name="max_lifetime_days"
            type="number"
            min={1}
            max={365}
            label={t('admin.tokens.maxLifetime')}
            help={t('admin.tokens.maxLifetimeHelp')}
            defaultValue={data.max_lifetime_days}
            error={form.at('max_lifetime_days')}
          />
          <div className="checkbox">
            <input
              type="checkbox"
              id="refuse-legacy"
              checked={refusing}
              onChange={(event) => setRefuse(event.currentTarget.checked)}
            />
            <label htmlFor="refuse-legacy">{t('admin.tokens.refuseLegacy')}</label>
          </div>
          {refusing && (
            <TextField
              name="refuse_legacy_from"
              type="date"
              label={t('admin.tokens.refuseLegacyFrom')}
              help={t('admin.tokens.refuseLegacyHelp')}
              defaultValue={
                data.refuse_legacy_from?.slice(0, 10) ?? new Date().toISOString().slice(0, 10)
              }
              error={form.at('refuse_legacy_from')}
            />
          )}
        </SettingsForm>
      )}
    </SettingsSection>
  )
}
