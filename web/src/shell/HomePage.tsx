import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { client, unwrap } from '../api/client'
import { meQuery } from '../api/queries'
import { passkeysQuery } from '../passkeys/queries'
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'

/** Where a sign-in lands: who is signed in and the state of the account's protection. */
export function HomePage() {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const mfa = useQuery({ queryKey: ['mfa-status'], queryFn: () => unwrap(client.GET('/api/auth/mfa/status')) })
  // A passkey is a second factor too (issue 14).
  const hasPasskeys = (useQuery(passkeysQuery).data?.items.length ?? 0) > 0
  return (
    <Page title={t('home.title', { name: me.data?.name ?? '' })} description={t('home.description')}>
      <ul className="cards">
        <li className="card">
          <h2>
            <Link to="/account/security">{t('nav.security')}</Link>
          </h2>
          <p>{mfa.data === undefined ? '\u00a0' : mfa.data.enabled || hasPasskeys ? t('home.mfaOn') : t('home.mfaOff')}</p>
        </li>
        <li className="card">
          <h2>
            <Link to="/account/tokens">{t('nav.tokens')}</Link>
          </h2>
          <p>{t('home.tokens')}</p>
        </li>
        <li className="card">
          <h2>
            <Link to="/account">{t('nav.profile')}</Link>
          </h2>
          <p>{t('home.profile')}</p>
        </li>
      </ul>
    </Page>
  )
}
