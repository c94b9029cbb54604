/**
 * Shown on the security page while the instance's two-factor policy restricts this session to
 * enrolment (the API answers everything else with MFA_ENROLLMENT_REQUIRED): why the person is here
 * and what unlocks the rest. A live region, so arriving here is announced.
 */
import { useI18n } from '../i18n/i18n'

export function EnrollmentRequiredNotice() {
  const { t } = useI18n()
  return (
    <div className="policy-notice" role="status" data-testid="enrollment-required">
      <h2>{t('policy.requiredTitle')}</h2>
      <p>{t('policy.requiredText')}</p>
    </div>
  )
}
