/**
 * Activity: the account's own security events — sign-ins, failed sign-ins,
 * factor, password, email and token changes — newest first, with device (browser and system),
 * IP address and time (relative, exact on hover and focus). Paged by the API's keyset cursor,
 * which lives in the query string so Back and a reload return to the same page.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link, useSearch } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { useDeviceName } from '../account/use-device-name'
import { useI18n, type MessageKey } from '../i18n/i18n'
import { Page } from '../ui/page'
import { RelativeTime } from '../ui/time'
import { TableHead } from '../ui/table-head'

const PAGE_SIZE = 25

/** The words for each action the API lists; an action added later shows under its own name. */
const ACTION_LABELS: Record<string, MessageKey> = {
  'auth.setup': 'securityLog.action.setup',
  'auth.login': 'securityLog.action.login',
  'auth.login_failed': 'securityLog.action.loginFailed',
  'auth.mfa_verify_failed': 'securityLog.action.mfaFailed',
  'auth.oidc_failed': 'securityLog.action.oidcFailed',
  'auth.passkey_failed': 'securityLog.action.passkeyFailed',
  'auth.logout': 'securityLog.action.logout',
  'session.revoke': 'securityLog.action.sessionRevoke',
  'user.password_change': 'securityLog.action.passwordChange',
  'user.password_reset_requested': 'securityLog.action.passwordResetRequested',
  'user.password_reset': 'securityLog.action.passwordReset',
  'user.email_change_requested': 'securityLog.action.emailRequested',
  'user.email_verified': 'securityLog.action.emailChanged',
  'user.oidc_link': 'securityLog.action.oidcLink',
  'user.oidc_unlink': 'securityLog.action.oidcUnlink',
  'mfa.enable': 'securityLog.action.mfaEnable',
  'mfa.disable': 'securityLog.action.mfaDisable',
  'mfa.backup_regenerate': 'securityLog.action.backupRegenerate',
  'mfa.reset': 'securityLog.action.mfaReset',
  'passkey.register': 'securityLog.action.passkeyAdd',
  'passkey.rename': 'securityLog.action.passkeyRename',
  'passkey.delete': 'securityLog.action.passkeyRemove',
  'token.create': 'securityLog.action.tokenCreate',
  'token.revoke': 'securityLog.action.tokenRevoke',
  'admin.user_update': 'securityLog.action.adminUpdate',
}

const FAILURES = new Set([
  'auth.login_failed',
  'auth.mfa_verify_failed',
  'auth.oidc_failed',
  'auth.passkey_failed',
])

export function ActivityPage() {
  const { t } = useI18n()
  const { cursor } = useSearch({ from: '/shell/account/activity' })
  const events = useQuery({
    queryKey: ['security-events', cursor ?? null],
    queryFn: () =>
      unwrap(
        client.GET('/api/users/me/security-events', {
          params: { query: { limit: PAGE_SIZE, ...(cursor !== undefined && { cursor }) } },
        }),
      ),
    placeholderData: keepPreviousData,
  })
  const items = events.data?.items ?? []

  const deviceName = useDeviceName()
  const label = (event: (typeof items)[number]) => {
    // A sign-in that spent a backup code says so: the person may not have meant to use one up.
    const key =
      event.action === 'auth.login' && event.method?.split('+').includes('backup_code')
        ? 'securityLog.action.loginBackupCode'
        : ACTION_LABELS[event.action]
    const text = key === undefined ? event.action : t(key)
    return event.name === null ? text : t('securityLog.named', { action: text, name: event.name })
  }

  return (
    <Page title={t('securityLog.title')} description={t('securityLog.description')}>
      <section className="section" aria-labelledby="activity-heading">
        <h2 id="activity-heading" className="visually-hidden">
          {t('securityLog.title')}
        </h2>
        {events.data === undefined ? (
          <p className="skeleton" aria-hidden="true" />
        ) : items.length === 0 ? (
          <p className="empty">{t('securityLog.empty')}</p>
        ) : (
          <table className="table" data-testid="security-events">
            <TableHead
              columns={[
                t('securityLog.event'),
                t('sessions.device'),
                t('sessions.ip'),
                t('securityLog.time'),
              ]}
            />
            <tbody>
              {items.map((event) => (
                <tr key={event.id} data-action={event.action}>
                  <td>
                    <span className={FAILURES.has(event.action) ? 'activity-failed' : undefined}>
                      {label(event)}
                    </span>
                    {event.by_administrator && (
                      <span className="badge">{t('securityLog.byAdministrator')}</span>
                    )}
                  </td>
                  <td>{deviceName(event.user_agent)}</td>
                  <td className="mono ip">{event.ip ?? '—'}</td>
                  <td>
                    <RelativeTime iso={event.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {(cursor !== undefined || events.data?.next_cursor) && (
          <nav className="pager" aria-label={t('securityLog.pages')}>
            {cursor !== undefined && (
              <Link to="/account/activity" search={{}} className="button button-secondary">
                {t('securityLog.newest')}
              </Link>
            )}
            {events.data?.next_cursor && (
              <Link
                to="/account/activity"
                search={{ cursor: events.data.next_cursor }}
                className="button button-secondary"
              >
                {t('securityLog.older')}
              </Link>
            )}
          </nav>
        )}
      </section>
    </Page>
  )
}
