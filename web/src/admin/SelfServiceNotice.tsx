/**
 * 409 SELF_SERVICE_REQUIRED: administrators change their own credentials where everyone does, on
 * their account pages, which ask for their own proofs. Said as a sentence with the way there.
 */
import { Link } from '@tanstack/react-router'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'

export function isSelfService(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.reason === 'SELF_SERVICE_REQUIRED' || error.reason === 'SELF_DELETION')
  )
}

export function SelfServiceNotice({ to }: { to: '/account' | '/account/security' }) {
  const { t } = useI18n()
  return (
    <div className="form-error" role="alert">
      {t('admin.selfService')}{' '}
      <Link to={to}>
        {to === '/account' ? t('admin.selfService.profile') : t('admin.selfService.security')}
      </Link>
    </div>
  )
}
