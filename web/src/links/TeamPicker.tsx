/**
 * "Share with teams": a checkbox per team the person may share with (their teams; every team for
 * an administrator). A team already chosen that the person is not in stays listed, so it can be
 * removed (removing is open to whoever may change the link or collection).
 */
import { useQuery } from '@tanstack/react-query'
import { useI18n } from '../i18n/i18n'
import { shareableTeamsQuery } from './collection-queries'

export function TeamPicker({
  value,
  onChange,
  knownNames = {},
  error,
}: {
  value: string[]
  onChange: (teamIds: string[]) => void
  /** Names of chosen teams the person is not in (from the object's `shared_via`), by id. */
  knownNames?: Record<string, string>
  error?: string | undefined
}) {
  const { t } = useI18n()
  const teams = useQuery(shareableTeamsQuery)
  const offered = teams.data?.items ?? []
  const others = value
    .filter((id) => !offered.some((team) => team.id === id))
    .map((id) => ({ id, name: knownNames[id] ?? t('sharing.otherTeam') }))
  const all = [...offered, ...others]
  return (
    <fieldset
      className="field team-picker"
      aria-describedby={error ? 'team-picker-error' : undefined}
    >
      <legend>{t('sharing.shareWithTeams')}</legend>
      {teams.isSuccess && all.length === 0 ? (
        <p className="field-help">{t('sharing.noTeams')}</p>
      ) : (
        <ul className="checkbox-list team-options">
          {all.map((team) => (
            <li key={team.id}>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={value.includes(team.id)}
                  onChange={(event) =>
                    onChange(
                      event.target.checked
                        ? [...value, team.id]
                        : value.filter((id) => id !== team.id),
                    )
                  }
                />
                <span dir="auto">{team.name}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <p className="field-help">{t('sharing.teamsHelp')}</p>
      {error && (
        <p id="team-picker-error" className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  )
}
