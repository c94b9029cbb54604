/**
 * Administration · Settings: one section component per concern, in the order an administrator
 * sets an instance up. A new section (a policy, say) is one more entry in SECTIONS.
 *
 * The sections have their own navigation beside them (above them on a phone); each link
 * is the section's address on the page (/admin/settings#smtp), so it can be shared.
 */
import { useRouterState } from '@tanstack/react-router'
import { useEffect, type ComponentType } from 'react'
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

/**
 * Arriving at a section's address (from the first-run checklist, say), the page shows that section
 * and focuses its heading, once the sections above it have their data (a skeleton above would
 * push it down again). Gives up waiting after a few seconds and focuses it then.
 */
function useFocusSection(id: string) {
  useEffect(() => {
    if (id === '') return
    const started = Date.now()
    let frame = 0
    const settle = () => {
      const heading = document.getElementById(`${id}-heading`)
      const loading = document.querySelector('.settings-sections .skeleton') !== null
      if (heading === null || (loading && Date.now() - started < 5000)) {
        frame = requestAnimationFrame(settle)
        return
      }
      heading.focus({ preventScroll: true })
      heading.closest('section')?.scrollIntoView({ block: 'start' })
    }
    frame = requestAnimationFrame(settle)
    return () => cancelAnimationFrame(frame)
  }, [id])
}

export function SettingsPage() {
  const { t } = useI18n()
  const hash = useRouterState({ select: (state) => state.location.hash })
  useFocusSection(SECTIONS.some((section) => section.id === hash) ? hash : '')
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
