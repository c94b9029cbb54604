/**
 * The invitations waiting for the person, said on their first page after signing in (the links
 * page): who invites them where, with which role, and a link to the organizations page, where they
 * answer. Shown only while one waits.
 */
import { useInfiniteQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useI18n } from '../i18n/i18n'
import { myInvitationsQuery } from './queries'

export function PendingInvitationsNotice() {
  const { t } = useI18n()
  const invitations = useInfiniteQuery(myInvitationsQuery)
  const items = invitations.data?.pages.flatMap((page) => page.items) ?? []
  if (items.length === 0) return null
  return (
    <section
      className="notice pending-invitations"
      aria-labelledby="pending-invitations-heading"
      data-testid="pending-invitations"
    >
      <div>
        <h2 id="pending-invitations-heading" className="visually-hidden">
          {t('orgs.invitation.title')}
        </h2>
        <ul className="plain-list">
          {items.slice(0, 3).map((invitation) => (
            <li key={invitation.id}>
              {t(
                invitation.invited_by_name === null
                  ? 'invitation.summaryNoInviter'
                  : 'invitation.summary',
                {
                  inviter: invitation.invited_by_name ?? '',
                  organization: invitation.organization_name,
                  role: t(`role.${invitation.role}` as 'role.member'),
                },
              )}
            </li>
          ))}
        </ul>
        {items.length > 3 && <p>{t('orgs.invitation.pendingMore', { count: items.length - 3 })}</p>}
      </div>
      <Link to="/orgs" className="button button-primary button-small">
        {t('orgs.invitation.review', { count: items.length })}
      </Link>
    </section>
  )
}
