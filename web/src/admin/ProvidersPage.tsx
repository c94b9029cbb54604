/**
 * Administration · Identity providers: the OIDC providers people sign in with, and the callback URL
 * to register at each.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { CopyButton } from '../ui/secret'
import { TableHead } from '../ui/table-head'
import { providersAdminQuery } from './queries'

export function ProvidersPage() {
  const { t } = useI18n()
  const providers = useQuery(providersAdminQuery)
  const items = providers.data?.items ?? []
  return (
    <Page
      title={t('admin.providers.title')}
      description={t('admin.providers.description')}
      actions={
        <Link to="/admin/providers/new" className="button button-primary">
          {t('admin.providers.create')}
        </Link>
      }
    >
      {providers.isSuccess && items.length === 0 ? (
        <p className="empty">{t('admin.providers.empty')}</p>
      ) : (
        <table className="table" data-testid="providers">
          <TableHead
            columns={[
              t('field.name'),
              t('admin.providers.key'),
              t('admin.providers.state'),
              t('admin.providers.callback'),
            ]}
          />
          <tbody>
            {items.map((provider) => (
              <tr key={provider.id}>
                <td>
                  <Link to="/admin/providers/$providerId" params={{ providerId: provider.id }}>
                    {provider.name}
                  </Link>
                </td>
                <td className="mono">{provider.provider_key}</td>
                <td>
                  {provider.enabled ? t('admin.providers.enabled') : t('admin.providers.disabled')}
                </td>
                <td>
                  <div className="copy-row">
                    <code className="mono callback-url">{provider.callback_url}</code>
                    <CopyButton
                      text={provider.callback_url}
                      label={t('admin.providers.copyNamed', { name: provider.name })}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {providers.data?.next_cursor && <p className="muted">{t('admin.providers.more')}</p>}
    </Page>
  )
}
