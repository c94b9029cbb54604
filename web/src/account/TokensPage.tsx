/** Personal API tokens: list, create (the secret shown once, with a copy button), revoke. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { FormError, SelectField, SubmitButton, TextField, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { useFormError } from '../ui/use-form-error'
import { CopyButton } from '../ui/secret'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'

const tokensQuery = { queryKey: ['tokens'], queryFn: () => unwrap(client.GET('/api/tokens', { params: { query: { limit: 100 } } })) }
const EXPIRY_DAYS = ['30', '90', '365', 'never'] as const

export function TokensPage() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const tokens = useQuery(tokensQuery)
  const formError = useFormError(['name', 'expires_in_days'])
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)

  const create = useMutation({
    mutationFn: (body: { name: string; expires_in_days?: number }) => unwrap(client.POST('/api/tokens', { body })),
    onSuccess: async (data) => {
      setCreated({ name: data.name, token: data.token })
      formError.form.current?.reset()
      await queryClient.invalidateQueries({ queryKey: ['tokens'] })
    },
    onError: formError.fail,
  })

  const revoke = async (id: string, name: string) => {
    await unwrap(client.DELETE('/api/tokens/{id}', { params: { path: { id } } }))
    announce(t('tokens.revoked', { name }))
    await queryClient.invalidateQueries({ queryKey: ['tokens'] })
  }

  const items = tokens.data?.items ?? []
  return (
    <Page title={t('tokens.title')} description={t('tokens.description')}>
      {created !== null && (
        <section className="reveal" aria-labelledby="created-heading">
          <h2 id="created-heading">{t('tokens.created', { name: created.name })}</h2>
          <p className="warning">{t('tokens.once')}</p>
          <p>
            <code className="secret" data-testid="new-token">
              {created.token}
            </code>
          </p>
          <div className="row">
            <CopyButton text={created.token} label={t('tokens.copy')} />
            <button type="button" className="button button-primary" onClick={() => setCreated(null)}>
              {t('tokens.stored')}
            </button>
          </div>
        </section>
      )}
      <section className="section" aria-labelledby="create-heading">
        <h2 id="create-heading">{t('tokens.new')}</h2>
        <form
          ref={formError.form}
          className="form-inline"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            formError.clear()
            const values = formValues(event.currentTarget)
            const days = values.expires_in_days
            create.mutate({ name: values.name ?? '', ...(days !== undefined && days !== 'never' && { expires_in_days: Number(days) }) })
          }}
        >
          <FormError>{formError.general}</FormError>
          <TextField name="name" label={t('tokens.name')} help={t('tokens.nameHelp')} maxLength={100} error={formError.at('name')} />
          <SelectField
            name="expires_in_days"
            label={t('tokens.expiry')}
            defaultValue="90"
            options={EXPIRY_DAYS.map((value) => ({
              value,
              label: value === 'never' ? t('tokens.never') : t('tokens.days', { count: Number(value) }),
            }))}
            error={formError.at('expires_in_days')}
          />
          <SubmitButton pending={create.isPending}>{t('tokens.create')}</SubmitButton>
        </form>
      </section>
      <section className="section" aria-labelledby="list-heading">
        <h2 id="list-heading">{t('tokens.list')}</h2>
        {tokens.isSuccess && items.length === 0 ? (
          <p className="empty">{t('tokens.empty')}</p>
        ) : (
          <table className="table" data-testid="tokens">
            <TableHead columns={[t('tokens.name'), t('tokens.prefix'), t('tokens.createdAt'), t('tokens.lastUsed'), t('tokens.expires')]} actions />
            <tbody>
              {items.map((token) => (
                <tr key={token.id}>
                  <td>{token.name}</td>
                  <td className="mono">{token.prefix}…</td>
                  <td>
                    <RelativeTime iso={token.created_at} />
                  </td>
                  <td>{token.last_used_at === null ? t('tokens.neverUsed') : <RelativeTime iso={token.last_used_at} />}</td>
                  <td>{token.expires_at === null ? t('tokens.never') : <RelativeTime iso={token.expires_at} />}</td>
                  <td className="actions">
                    <ConfirmDialog
                      trigger={t('tokens.revoke')}
                      triggerLabel={t('tokens.revokeNamed', { name: token.name })}
                      title={t('tokens.revokeTitle', { name: token.name })}
                      confirmLabel={t('tokens.revokeConfirm')}
                      danger
                      onConfirm={() => revoke(token.id, token.name)}
                    >
                      <p>{t('tokens.revokeText')}</p>
                    </ConfirmDialog>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Page>
  )
}
