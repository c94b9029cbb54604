/**
 * Settings · other settings: the generic key/value store (any JSON value). The typed sections
 * (smtp, ai) appear in the list but are changed only in their own sections above.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SubmitButton, TextField, formValues } from '../ui/form'
import { RelativeTime } from '../ui/time'
import { useFormError } from '../ui/use-form-error'
import { TableHead } from '../ui/table-head'
import { settingsQuery } from './queries'

const TYPED_SECTIONS = new Set(['smtp', 'ai', 'billing'])
const typed = (key: string) => TYPED_SECTIONS.has(key.split('.')[0]!)

export function GenericSettingsSection() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const [cursor, setCursor] = useState<string | undefined>(undefined)
  const settings = useQuery(settingsQuery(cursor))
  const [editing, setEditing] = useState<{ key: string; value: string; n: number }>({
    key: '',
    value: '',
    n: 0,
  })
  const items = (settings.data?.items ?? []).filter((setting) => !typed(setting.key))
  const remove = async (key: string) => {
    await unwrap(client.DELETE('/api/admin/settings/{key}', { params: { path: { key } } }))
    announce(t('admin.generic.deleted', { key }))
    await queryClient.invalidateQueries({ queryKey: ['admin', 'settings'] })
  }
  return (
    <section className="section" id="other-settings" aria-labelledby="generic-heading">
      <h2 id="generic-heading">{t('admin.generic.title')}</h2>
      <p className="muted">{t('admin.generic.description')}</p>
      {settings.isSuccess && items.length === 0 && cursor === undefined ? (
        <p className="empty">{t('admin.generic.empty')}</p>
      ) : (
        <table className="table" data-testid="settings">
          <TableHead
            columns={[
              t('admin.generic.key'),
              t('admin.generic.value'),
              t('admin.generic.updatedAt'),
            ]}
            actions
          />
          <tbody>
            {items.map((setting) => (
              <tr key={setting.key}>
                <td className="mono">{setting.key}</td>
                <td className="mono value-cell">{JSON.stringify(setting.value)}</td>
                <td>
                  <RelativeTime iso={setting.updated_at} />
                </td>
                <td className="actions">
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    aria-label={t('admin.generic.editNamed', { key: setting.key })}
                    onClick={() =>
                      setEditing((current) => ({
                        key: setting.key,
                        value: JSON.stringify(setting.value, null, 2),
                        n: current.n + 1,
                      }))
                    }
                  >
                    {t('admin.generic.edit')}
                  </button>
                  <ConfirmDialog
                    trigger={t('admin.generic.delete')}
                    triggerLabel={t('admin.generic.deleteNamed', { key: setting.key })}
                    title={t('admin.generic.deleteTitle', { key: setting.key })}
                    confirmLabel={t('admin.generic.delete')}
                    danger
                    onConfirm={() => remove(setting.key)}
                  >
                    <p>{t('admin.generic.deleteText')}</p>
                  </ConfirmDialog>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(cursor !== undefined || settings.data?.next_cursor) && (
        <nav className="pager" aria-label={t('admin.generic.pages')}>
          {cursor !== undefined && (
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => setCursor(undefined)}
            >
              {t('admin.pager.first')}
            </button>
          )}
          {settings.data?.next_cursor && (
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => setCursor(settings.data.next_cursor ?? undefined)}
            >
              {t('admin.pager.next')}
            </button>
          )}
        </nav>
      )}
      <SettingForm key={editing.n} initial={editing} />
    </section>
  )
}

function SettingForm({ initial }: { initial: { key: string; value: string } }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const state = useFormError(['key', 'value'])
  const [notJson, setNotJson] = useState(false)
  const save = useMutation({
    mutationFn: ({ key, value }: { key: string; value: unknown }) =>
      unwrap(
        client.PUT('/api/admin/settings/{key}', { params: { path: { key } }, body: { value } }),
      ),
    onSuccess: async (setting) => {
      announce(t('admin.generic.saved', { key: setting.key }))
      state.form.current?.reset()
      await queryClient.invalidateQueries({ queryKey: ['admin', 'settings'] })
    },
    onError: state.fail,
  })
  return (
    <form
      ref={state.form}
      className="panel stack"
      aria-labelledby="setting-form-heading"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        state.clear()
        const values = formValues(event.currentTarget)
        let value: unknown
        try {
          value = JSON.parse(values.value ?? '')
        } catch {
          setNotJson(true)
          return
        }
        setNotJson(false)
        save.mutate({ key: (values.key ?? '').trim(), value })
      }}
    >
      <h3 id="setting-form-heading">{t('admin.generic.form')}</h3>
      <FormError>{state.general}</FormError>
      <TextField
        name="key"
        label={t('admin.generic.key')}
        help={t('admin.generic.keyHelp')}
        defaultValue={initial.key}
        autoComplete="off"
        spellCheck={false}
        className="mono-input"
        error={state.at('key')}
      />
      <JsonField
        defaultValue={initial.value}
        error={notJson ? t('admin.generic.notJson') : state.at('value')}
      />
      <SubmitButton pending={save.isPending}>{t('admin.generic.save')}</SubmitButton>
    </form>
  )
}

function JsonField({ defaultValue, error }: { defaultValue: string; error?: string | undefined }) {
  const { t } = useI18n()
  return (
    <div className="field">
      <label htmlFor="setting-value">{t('admin.generic.value')}</label>
      <textarea
        id="setting-value"
        name="value"
        rows={4}
        spellCheck={false}
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'setting-value-help setting-value-error' : 'setting-value-help'}
      />
      <p id="setting-value-help" className="field-help">
        {t('admin.generic.valueHelp')}
      </p>
      {error && (
        <p id="setting-value-error" className="field-error">
          {error}
        </p>
      )}
    </div>
  )
}
