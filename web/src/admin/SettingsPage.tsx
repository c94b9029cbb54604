/**
 * Administration · Settings: one section component per concern, in the order an administrator
 * sets an instance up. A new section (a policy, say) is one more component in the list.
 */
import { useI18n } from '../i18n/i18n'
import { TwoFactorPolicySection } from '../policy/TwoFactorPolicySection'
import { Page } from '../ui/page'
import { AiSection } from './AiSection'
import { ApiTokenSettingsSection } from './ApiTokenSettingsSection'
import { GenericSettingsSection } from './GenericSettingsSection'
import { SmtpSection } from './SmtpSection'

export function SettingsPage() {
  const { t } = useI18n()
  return (
    <Page title={t('admin.settings.title')} description={t('admin.settings.description')}>
      <TwoFactorPolicySection />
      <SmtpSection />
      <AiSection />
      <ApiTokenSettingsSection />
      <GenericSettingsSection />
    </Page>
  )
}
