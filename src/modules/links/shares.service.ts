/**
 * Sharing a link with teams (docs/API.md#links): whoever may change the link sets its teams. A
 * person adds only teams they are a member of, an administrator any team; any other team id is 404,
 * as an organization one is not in. Removing is open to whoever may change the link, and takes
 * the tags of the removed teams' members who no longer see the link off it. Each change is audited
 * (`link.share`, `link.unshare`, naming the teams), in the same transaction.
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation } from '../../db/client.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import type { Caller } from '../../identity/caller.js'
import type { AuditEntry } from '../audit/service.js'
import {
  addLinkTeams,
  findShareableTeams,
  findTeamsByIds,
  findTeamsOfLinks,
  listShareableTeams as listShareableTeamRows,
  removeLinkTeams,
  type TeamRef,
} from './shares.repo.js'
import { dropTagsOfNonReaders } from './ownership.repo.js'

export function teamNotFound(): AppError {
  return new AppError('NOT_FOUND', {
    message: 'No such team, or you are not a member.',
    details: 'team_ids',
  })
}

/**
 * The teams among `teamIds` the caller may share with (all of them: 404 otherwise): theirs, or
 * any for an administrator.
 */
export async function shareableTeams(
  ex: Executor,
  caller: Caller,
  teamIds: readonly string[],
): Promise<TeamRef[]> {
  const found = caller.user.is_admin
    ? await findTeamsByIds(ex, teamIds)
    : await findShareableTeams(ex, caller.user.id, teamIds)
  if (found.length !== new Set(teamIds).size) throw teamNotFound()
  return found
}

/** At most this many teams in the share pickers' list. */
export const MAX_SHAREABLE_TEAMS = 1000

/** The teams the caller may share links and collections with: theirs, or all for an admin. */
export async function listShareableTeams(
  deps: Deps,
  caller: Caller,
): Promise<{ items: TeamRef[] }> {
  const userId = caller.user.is_admin ? null : caller.user.id
  return { items: await listShareableTeamRows(deps.db, userId, MAX_SHAREABLE_TEAMS) }
}

/**
 * Sets the link's teams to `teamIds`, inside the caller's transaction; returns the audit entries of
 * the difference, for the caller to record as its transaction's last statement.
 */
export async function setLinkTeams(
  tx: Executor,
  deps: Deps,
  caller: Caller,
  linkId: string,
  teamIds: readonly string[],
): Promise<AuditEntry[]> {
  const current = (await findTeamsOfLinks(tx, [linkId])).get(linkId) ?? []
  const had = new Set(current.map((team) => team.id))
  const wanted = new Set(teamIds)
  const added = await shareableTeams(
    tx,
    caller,
    teamIds.filter((id) => !had.has(id)),
  )
  const removed = current.filter((team) => !wanted.has(team.id))
  const now = deps.clock.now().toISOString()
  try {
    await addLinkTeams(
      tx,
      linkId,
      added.map((team) => team.id),
      now,
    )
  } catch (error) {
    // The team was deleted between the check and the insert.
    if (isForeignKeyViolation(error)) throw teamNotFound()
    throw error
  }
  await removeLinkTeams(
    tx,
    linkId,
    removed.map((team) => team.id),
  )
  // The removed teams' members who no longer see the link lose their tags on it; who still sees
  // it (another team, the organization, a collection) keeps theirs.
  await dropTagsOfNonReaders(
    tx,
    [linkId],
    removed.map((team) => team.id),
  )
  return (
    [
      ['link.share', added],
      ['link.unshare', removed],
    ] as const
  )
    .filter(([, teams]) => teams.length > 0)
    .map(([action, teams]) => ({
      action,
      actor: caller.user,
      target: { type: 'link', id: linkId },
      metadata: {
        team_ids: teams.map((team) => team.id),
        teams: teams.map((team) => team.name),
      },
    }))
}
