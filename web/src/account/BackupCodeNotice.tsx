/**
 * After a sign-in with a backup code: "You signed in with a backup code. N are left." —
 * once, at the top of the first signed-in page, with the way to the security page where new codes
 * are made. The count comes from the API, never from the client.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import { mfaStatusQuery } from '../api/queries'
import { takeBackupCodeUsed } from '../auth/sign-in'
import { useI18n } from '../i18n/i18n'

export function BackupCodeNotice() {
  const { t } = useI18n()
  const [shown] = useState(takeBackupCodeUsed)
  const status = useQuery({ ...mfaStatusQuery, enabled: shown })
  if (!shown || status.data === undefined) return null
  return (
    <p className="state state-weak" role="status" data-testid="backup-code-used">
      {t('accountSecurity.backupUsed', { count: status.data.backup_codes_remaining })}{' '}
      <Link to="/account/security">{t('security.regenerate')}</Link>
    </p>
  )
}
