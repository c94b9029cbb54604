/**
 * Administration · Settings: one section component per concern, in the order an administrator
 * sets an instance up. A new section (a policy, say) is one more entry in SECTIONS.
 *
 * The sections have their own navigation beside them (above them on a phone); each link
 * is the section's address on the page (/admin/settings#smtp), so it can be shared.
 */
import type { ComponentType } from 'react'
import { useI18n } from '../i18n/i18n'
import { TwoFactorPolicySection } from '../policy/TwoFactorPolicySection'
import { Page } from '../ui/page'
import { AiSection } from './AiSection'
import { ApiTokenSettingsSection } from './ApiTokenSettingsSection'
import { GenericSettingsSection } from './GenericSettingsSection'
import { SignUpSettingsSection } from './SignUpSettingsSection'
import { SmtpSection } from './SmtpSection'

/** Each section's id (set on its <section>), the catalogue key of its title, and its component. */
const SECTIONS: { id: string; title: string; Section: ComponentType }[] = [
  { id: 'two-factor-policy', title: 'policy.title', Section: TwoFactorPolicySection },
  { id: 'smtp', title: 'admin.smtp.title', Section: SmtpSection },
  { id: 'ai', title: 'admin.ai.title', Section: AiSection },
  { id: 'api-tokens', title: 'admin.tokens.title', Section: ApiTokenSettingsSection },
  { id: 'sign-up', title: 'admin.signUp.title', Section: SignUpSettingsSection },
  { id: 'other-settings', title: 'admin.generic.title', Section: GenericSettingsSection },
]

export function SettingsPage() {
  const { t } = useI18n()
  return (
    <Page title={t('admin.settings.title')} description={t('admin.settings.description')}>
      <div className="settings-layout">
        <nav
          className="settings-nav"
          aria-label={t('admin.settings.sections')}
          data-testid="settings-nav"
        >
          <ul>
            {SECTIONS.map(({ id, title }) => (
              <li key={id}>
                <a href={`#${id}`}>{t(title)}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="settings-sections">
          {SECTIONS.map(({ id, Section }) => (
            <Section key={id} />
          ))}
        </div>
      </div>
    </Page>
  )
}
