/** The Links list's table: a select-all box over one row per link in view. */
import { useI18n } from '../i18n/i18n'
import { LinkRow, type LinkAction } from './LinkRow'
import type { Link } from './queries'
import type { LinksView } from './use-links-view'

export function LinksTable({
  view,
  onAction,
}: {
  view: LinksView
  onAction: (link: Link, action: LinkAction) => void
}) {
  const { t } = useI18n()
  const { items, selection } = view
  const orgNames = new Map(view.organizations.map((org) => [org.id, org.name]))
  const someSelected = items.some((link) => selection.selected.has(link.id))
  // A link the person sees through a team (not theirs, not their organization's) names the teams.
  const ownerName = (link: Link) =>
    link.shared_via !== null &&
    link.shared_via.organization === null &&
    link.shared_via.teams.length > 0
      ? t('sharing.sharedBy', { teams: link.shared_via.teams.join(', ') })
      : link.organization_id === null
        ? link.team_ids.length > 0
          ? t('links.meAndTeams', { count: link.team_ids.length })
          : t('links.onlyMe')
        : (orgNames.get(link.organization_id) ?? t('links.anOrganization'))
  return (
    <table className="table links-table" data-testid="links">
      <colgroup>
        <col className="col-select" />
        <col />
        <col className="col-go" />
        <col className="col-tags" />
        <col className="col-owner" />
        <col className="col-actions" />
      </colgroup>
      <thead>
        <tr>
          <th scope="col" className="select-cell">
            <input
              type="checkbox"
              aria-label={t('links.selectAll')}
              checked={selection.allSelected}
              ref={(box) => {
                if (box) box.indeterminate = someSelected && !selection.allSelected
              }}
              onChange={selection.toggleAll}
            />
          </th>
          <th scope="col">{t('links.titleField')}</th>
          <th scope="col">{t('links.goLink')}</th>
          <th scope="col">{t('links.tags')}</th>
          <th scope="col">{t('links.owner')}</th>
          <th scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((link) => (
          <LinkRow
            key={link.id}
            link={link}
            selected={selection.selected.has(link.id)}
            onSelect={(on) => selection.toggle(link.id, on)}
            tagName={view.tagName}
            ownerName={ownerName(link)}
            onAction={(action) => onAction(link, action)}
          />
        ))}
      </tbody>
    </table>
  )
}
