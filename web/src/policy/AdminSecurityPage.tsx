/**
 * /admin/security: a home for the two-factor policy control until the administration settings
 * page hosts TwoFactorPolicySection (the lead moves it there at merge).
 */
import { useI18n } from '../i18n/i18n'
import { Page } from '../ui/page'
import { TwoFactorPolicySection } from './TwoFactorPolicySection'

export function AdminSecurityPage() {
  const { t } = useI18n()
  return (
    <Page title={t('policy.pageTitle')} description={t('policy.pageDescription')}>
      <TwoFactorPolicySection />
    </Page>
  )
}
