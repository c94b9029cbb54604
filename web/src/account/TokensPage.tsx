/**
 * Personal API tokens: create one with a name, an expiry, an organization boundary and
 * per-area permissions (each area listing the operations it opens, from the OpenAPI document), with
 * a summary line of what it can do; list them with their permissions, boundary, expiry and last
 * use; replace a legacy full-access token with a scoped one; revoke.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'
import { TokenForm, type Replacing } from './TokenForm'
import { choicesOf, type Area } from './token-catalogue'

const tokensQuery = {
  queryKey: ['tokens'],
  queryFn: () => unwrap(client.GET('/api/tokens', { params: { query: { limit: 100 } } })),
}
export const tokenPolicyQuery = {
  queryKey: ['token-policy'],
  queryFn: () => unwrap(client.GET('/api/tokens/policy')),
}
const WEEK_MS = 7 * 86_400_000

type Token = NonNullable<Awaited<ReturnType<typeof tokensQuery.queryFn>>>['items'][number]

export function TokensPage() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const tokens = useQuery(tokensQuery)
  const policy = useQuery(tokenPolicyQuery)
  const me = useQuery(meQuery)
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null)
  const [replacing, setReplacing] = useState<Replacing | null>(null)

  const revoke = async (id: string, name: string) => {
    await unwrap(client.DELETE('/api/tokens/{id}', { params: { path: { id } } }))
    announce(t('tokens.revoked', { name }))
    await queryClient.invalidateQueries({ queryKey: ['tokens'] })
  }

  const onCreated = async (data: { name: string; token: string }) => {
    setCreated({ name: data.name, token: data.token })
    if (replacing !== null) {
      await unwrap(client.DELETE('/api/tokens/{id}', { params: { path: { id: replacing.id } } }))
      setReplacing(null)
    }
    await queryClient.invalidateQueries({ queryKey: ['tokens'] })
  }

  const items = tokens.data?.items ?? []
  const legacyRefusedFrom = policy.data?.legacy_refused_from ?? null
  return (
    <Page title={t('tokens.title')} description={t('tokens.scopedDescription')}>
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
            <button
              type="button"
              className="button button-primary"
              onClick={() => setCreated(null)}
            >
              {t('tokens.stored')}
            </button>
          </div>
        </section>
      )}
      {policy.data !== undefined && me.data !== undefined && (
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
      <section className="section" aria-labelledby="list-heading">
        <h2 id="list-heading">{t('tokens.list')}</h2>
        {legacyRefusedFrom !== null && items.some((token) => token.legacy) && (
          <p className="warning">
            {t('tokens.legacyRefusedFrom', {
              date: new Date(legacyRefusedFrom).toLocaleDateString(),
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
                      window.scrollTo({ top: 0, behavior: 'smooth' })
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
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
  const expiresSoon =
    token.expires_at !== null && Date.parse(token.expires_at) - Date.now() < WEEK_MS
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
              <div className="mono muted">{t('tokens.fromIp', { ip: token.last_used_ip })}</div>
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
