/** SQL for teams and their members. */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'
import { byName, keyset, type PageWindow } from '../../db/keyset.js'

export interface TeamRecord {
  id: string
  name: string
  description: string | null
  member_count: number
  created_at: Timestamp
}

/** A team's columns as a TeamRecord reads them, its member count counted. */
const TEAM_COLUMNS = [
  'teams.id',
  'teams.name',
  'teams.name_key',
  'teams.description',
  sql<
    number | string
  >`(select count(*) from team_members where team_members.team_id = ${sql.ref('teams.id')})`.as(
    'member_count',
  ),
  'teams.created_at',
] as const

function teams(ex: Executor) {
  return ex.selectFrom('teams').select(TEAM_COLUMNS)
}

/** PostgreSQL answers count(*) as bigint text; both engines give a number here. */
function asRecord(
  row: Omit<TeamRecord, 'member_count'> & { member_count: number | string; name_key: string },
): TeamRecord {
  const { name_key: _key, ...team } = row
  return { ...team, member_count: Number(row.member_count) }
}

export async function findTeam(ex: Executor, teamId: string): Promise<TeamRecord | null> {
  const row = await teams(ex).where('teams.id', '=', teamId).executeTakeFirst()
  return row ? asRecord(row) : null
}

/**
 * Teams by name ignoring case — the unique key, lower-cased — then id; with `memberId`, only that
 * user's teams.
 */
export async function listTeams(
  ex: Executor,
  window: PageWindow,
  memberId?: string,
): Promise<Array<TeamRecord & { name_key: string }>> {
  let query = teams(ex)
  if (memberId !== undefined)
    query = query.where(
      'teams.id',
      'in',
      ex
        .selectFrom('team_members')
        .select('team_members.team_id')
        .where('team_members.user_id', '=', memberId),
    )
  const rows = await keyset(query, window, {
    column: 'name_key',
    table: 'teams',
    direction: 'asc',
  }).execute()
  return rows.map((row) => ({ ...asRecord(row), name_key: row.name_key }))
}

export async function insertTeam(
  ex: Executor,
  team: {
    id: string
    name: string
    name_key: string
    description: string | null
    created_at: Timestamp
  },
): Promise<void> {
  await ex
    .insertInto('teams')
    .values({ ...team, updated_at: team.created_at })
    .execute()
}

export async function updateTeam(
  ex: Executor,
  teamId: string,
  changes: { name?: string; name_key?: string; description?: string | null; updated_at: Timestamp },
): Promise<boolean> {
  const result = await ex
    .updateTable('teams')
    .set(changes)
    .where('id', '=', teamId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/**
 * Updates the team and answers it as findTeam reads it, in one statement; null when there is no
 * such team.
 */
export async function updateTeamReturningRecord(
  ex: Executor,
  teamId: string,
  changes: { name?: string; name_key?: string; description?: string | null; updated_at: Timestamp },
): Promise<TeamRecord | null> {
  const row = await ex
    .updateTable('teams')
    .set(changes)
    .where('id', '=', teamId)
    .returning(TEAM_COLUMNS)
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

export async function deleteTeam(ex: Executor, teamId: string): Promise<boolean> {
  const result = await ex.deleteFrom('teams').where('id', '=', teamId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export interface TeamMemberRecord {
  user_id: string
  email: string
  name: string
  added_at: Timestamp
}

function teamMembers(ex: Executor, teamId: string) {
  return ex
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.user_id', 'users.email', 'users.name', 'team_members.added_at'])
    .where('team_members.team_id', '=', teamId)
}

/** Members by name (ignoring case), then user id. */
export async function listTeamMembers(
  ex: Executor,
  teamId: string,
  window: PageWindow,
): Promise<TeamMemberRecord[]> {
  return byName(teamMembers(ex, teamId), window, 'users').execute()
}

export async function insertTeamMember(
  ex: Executor,
  member: { team_id: string; user_id: string; added_at: Timestamp },
): Promise<void> {
  await ex.insertInto('team_members').values(member).execute()
}

export async function deleteTeamMember(
  ex: Executor,
  teamId: string,
  userId: string,
): Promise<boolean> {
  const result = await ex
    .deleteFrom('team_members')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}
