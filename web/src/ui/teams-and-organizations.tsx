/**
 * What a team is next to an organization, in the same words wherever either is managed:
 * the administration's Teams page and everyone's Organizations page. The words are in the orgs
 * area's catalogue, which the signed-in frame loads with every area.
 */
import { useI18n } from '../i18n/i18n'

export function TeamsAndOrganizations() {
  const { t } = useI18n()
  return (
    <p className="muted" data-testid="teams-purpose">
      {t('orgs.teamsPurpose')}
    </p>
  )
}
