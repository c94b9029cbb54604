/**
 * What a page says when something needs outgoing mail that the instance has not set up:
 * an administrator gets a link to the outgoing-mail settings, anyone else "ask an administrator".
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { meQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'

export function MailNotSetUp({ lead }: { lead: string }) {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  return (
    <>
      {lead}{' '}
      {me.data?.is_admin === true ? (
        <Link to="/admin/settings" hash="smtp">
          {t('mail.setUp')}
        </Link>
      ) : (
        t('mail.askAdmin')
      )}
    </>
  )
}
