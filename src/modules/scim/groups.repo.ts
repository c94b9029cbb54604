/** SQL for SCIM's view of teams: every team with its members' ids and names. */
import type { Executor, Timestamp } from '../../db/schema.js'

export interface ScimGroupRow {
  id: string
  name: string
  created_at: Timestamp
  updated_at: Timestamp
  members: Array<{ user_id: string; name: string }>
}

/** Teams in a stable order (creation, then id), each with its members; `ids` narrows to some. */
export async function listScimGroups(
  ex: Executor,
  ids: string[] | null = null,
): Promise<ScimGroupRow[]> {
  let query = ex
    .selectFrom('teams')
    .select(['id', 'name', 'created_at', 'updated_at'])
    .orderBy('created_at')
    .orderBy('id')
  if (ids !== null) {
    if (ids.length === 0) return []
    query = query.where('id', 'in', ids)
  }
  const teams = await query.execute()
  if (teams.length === 0) return []
  const members = await ex
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.team_id', 'team_members.user_id', 'users.name'])
    .where(
      'team_members.team_id',
      'in',
      teams.map((team) => team.id),
    )
    .orderBy('team_members.added_at')
    .orderBy('team_members.user_id')
    .execute()
  const byTeam = new Map<string, Array<{ user_id: string; name: string }>>()
  for (const member of members) {
    const list = byTeam.get(member.team_id) ?? []
    list.push({ user_id: member.user_id, name: member.name })
    byTeam.set(member.team_id, list)
  }
  return teams.map((team) => ({ ...team, members: byTeam.get(team.id) ?? [] }))
}

export async function findTeamIdByName(ex: Executor, name: string): Promise<string | null> {
  return (
    (
      await ex
        .selectFrom('teams')
        .select('id')
        .where('name_key', '=', name.toLowerCase())
        .executeTakeFirst()
    )?.id ?? null
  )
}

export async function existingUserIds(ex: Executor, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  return new Set(
    (await ex.selectFrom('users').select('id').where('id', 'in', ids).execute()).map(
      (row) => row.id,
    ),
  )
}
