/**
 * Personal API tokens: create one with a name, an expiry, an organization boundary and
 * per-area permissions (each area listing the operations it opens, from the OpenAPI document), with
 * a summary line of what it can do; list them with their permissions, boundary, expiry and last
 * use; replace a legacy full-access token with a scoped one; revoke. The list comes first; the
 * form opens from "New token", and a new token's secret is shown once in a dialog.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { Page } from '../ui/page'
import { RevealDialog } from '../ui/reveal-dialog'
import { RelativeTime, useDay } from '../ui/time'
import { TableHead } from '../ui/table-head'
import { TokenForm, type Replacing } from './TokenForm'
import { choicesOf, type Area } from './token-catalogue'
import { expiresSoon as expiresSoon_ } from './token-expiry'

const tokensQuery = {
  queryKey: ['tokens'],
  queryFn: () => unwrap(client.GET('/api/tokens', { params: { query: { limit: 100 } } })),
}
export const tokenPolicyQuery = {
  queryKey: ['token-policy'],
  queryFn: () => unwrap(client.GET('/api/tokens/policy')),
}

type Token = NonNullable<Awaited<ReturnType<typeof tokensQuery.queryFn>>>['items'][number]

export function TokensPage() {
  const { t } = useI18n()
  const day = useDay()
  const queryClient = useQueryClient()
  const tokens = useQuery(tokensQuery)
  const policy = useQuery(tokenPolicyQuery)
  const me = useQuery(meQuery)
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)
  const [replacing, setReplacing] = useState<Replacing | null>(null)
  const [formOpen, setFormOpen] = useState(false)

  const revoke = async (id: string, name: string) => {
    await unwrap(client.DELETE('/api/tokens/{id}', { params: { path: { id } } }))
    announce(t('tokens.revoked', { name }))
    await queryClient.invalidateQueries({ queryKey: ['tokens'] })
  }

  const onCreated = async (data: { name: string; token: string }) => {
    setCreated({ name: data.name, token: data.token })
    // The form folds away: the secret's dialog is what the person looks at now.
    setFormOpen(false)
    if (replacing !== null) {
      await unwrap(client.DELETE('/api/tokens/{id}', { params: { path: { id: replacing.id } } }))
      setReplacing(null)
    }
    await queryClient.invalidateQueries({ queryKey: ['tokens'] })
  }

  const items = tokens.data?.items ?? []
  const legacyRefusedFrom = policy.data?.legacy_refused_from ?? null
  const formShown = formOpen || replacing !== null
  // The form takes the focus itself once it is shown (TokenForm).
  const openForm = () => setFormOpen(true)
  return (
    <Page
      title={t('tokens.title')}
      description={t('tokens.scopedDescription')}
      actions={
        <button
          type="button"
          className="button button-primary"
          aria-expanded={formShown}
          aria-controls="token-form"
          onClick={() => (formShown ? setFormOpen(false) : openForm())}
        >
          {t('tokens.new')}
        </button>
      }
    >
      {created !== null && (
        <RevealDialog
          title={t('tokens.created', { name: created.name })}
          warning={t('tokens.once')}
          copy={{ text: created.token, label: t('tokens.copy') }}
          download={{
            text: `${created.token}\n`,
            filename: `switchboard-token-${created.name.replace(/[^A-Za-z0-9_-]+/g, '-')}.txt`,
            label: t('tokens.download'),
          }}
          savedLabel={t('tokens.savedCheck')}
          doneLabel={t('tokens.done')}
          onDone={() => setCreated(null)}
          testId="token-reveal"
        >
          <p>
            <code className="secret" data-testid="new-token">
              {created.token}
            </code>
          </p>
        </RevealDialog>
      )}
      <section className="section" aria-labelledby="list-heading">
        <h2 id="list-heading">{t('tokens.list')}</h2>
        {legacyRefusedFrom !== null && items.some((token) => token.legacy) && (
          <p className="warning">
            {t('tokens.legacyRefusedFrom', {
              date: day(legacyRefusedFrom),
            })}
          </p>
        )}
        {tokens.isSuccess && items.length === 0 ? (
          <p className="empty">{t('tokens.empty')}</p>
        ) : (
          <div className="table-scroll token-table">
            <table className="table" data-testid="tokens">
              <TableHead
                columns={[
                  t('tokens.name'),
                  t('tokens.permissionsColumn'),
                  t('tokens.boundaryColumn'),
                  t('tokens.expires'),
                  t('tokens.lastUsed'),
                ]}
                actions
              />
              <tbody>
                {items.map((token) => (
                  <TokenRow
                    key={token.id}
                    token={token}
                    onRevoke={() => revoke(token.id, token.name)}
                    onReplace={() => {
                      setReplacing({ id: token.id, name: token.name })
                      openForm()
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <div id="token-form" hidden={!formShown}>
        {formShown && policy.data !== undefined && me.data !== undefined && (
          <TokenForm
            // A new form (fresh defaults) for each replacement.
            key={replacing?.id ?? 'new'}
            policy={policy.data}
            isAdmin={me.data.is_admin}
            replacing={replacing}
            onStopReplacing={() => setReplacing(null)}
            onCreated={onCreated}
          />
        )}
      </div>
    </Page>
  )
}

function TokenRow({
  token,
  onRevoke,
  onReplace,
}: {
  token: Token
  onRevoke: () => Promise<void>
  onReplace: () => void
}) {
  const { t } = useI18n()
  const expiresSoon = token.expires_at !== null && expiresSoon_(token, Date.now())
  const choices = choicesOf(token.permissions)
  return (
    <tr data-testid={`token-${token.name}`}>
      <td>
        {token.name}
        <div className="mono muted">{token.prefix}…</div>
      </td>
      <td>
        {token.legacy ? (
          <span className="warning" title={t('tokens.legacyHelp')}>
            {t('tokens.legacy')}
          </span>
        ) : (
          <ul className="plain-list">
            {(Object.entries(choices) as Array<[Area, 'read' | 'write']>).map(([area, access]) => (
              <li key={area}>
                {t(`tokens.area.${area}`)}: {t(`tokens.access.${access}`)}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {token.organization_boundary === 'selected'
          ? t('tokens.scope.selected', { count: token.organization_ids.length })
          : t(`tokens.scope.${token.organization_boundary}`)}
      </td>
      <td className={expiresSoon ? 'warning' : undefined}>
        {token.expires_at === null ? t('tokens.never') : <RelativeTime iso={token.expires_at} />}
        {expiresSoon && <div>{t('tokens.expiresSoon')}</div>}
      </td>
      <td>
        {token.last_used_at === null ? (
          t('tokens.neverUsed')
        ) : (
          <>
            <RelativeTime iso={token.last_used_at} />
            {token.last_used_ip !== null && (
              <div className="mono muted ip">{t('tokens.fromIp', { ip: token.last_used_ip })}</div>
            )}
          </>
        )}
      </td>
      <td className="actions">
        {token.legacy && (
          <button
            type="button"
            className="button button-secondary"
            aria-label={t('tokens.replaceNamed', { name: token.name })}
            onClick={onReplace}
          >
            {t('tokens.replace')}
          </button>
        )}
        <ConfirmDialog
          trigger={t('tokens.revoke')}
          triggerLabel={t('tokens.revokeNamed', { name: token.name })}
          title={t('tokens.revokeTitle', { name: token.name })}
          confirmLabel={t('tokens.revokeConfirm')}
          danger
          onConfirm={onRevoke}
        >
          <p>{t('tokens.revokeText')}</p>
        </ConfirmDialog>
      </td>
    </tr>
  )
}
