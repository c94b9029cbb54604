/**
 * Teams (docs/API.md#teams): named groups of users kept by administrators. Names are unique on the
 * instance ignoring case, through a unique index on the lower-cased name.
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/client.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError, invalidField } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { findUserByEmail, findUserById } from '../users/repo.js'
import { normalizeEmail } from '../users/service.js'
import {
  deleteTeam as deleteTeamRow,
  deleteTeamMember,
  findTeam,
  insertTeam,
  insertTeamMember,
  listTeamMembers as listTeamMemberRows,
  listTeams as listTeamRows,
  updateTeamReturningRecord,
  type TeamMemberRecord,
  type TeamRecord,
} from './teams.repo.js'
import type { AddTeamMemberBody, CreateTeamBody, UpdateTeamBody } from './teams.schemas.js'

function teamNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such team.' })
}

function nameTaken(error: unknown): unknown {
  return isUniqueViolation(error)
    ? new AppError('ALREADY_EXISTS', {
        message: 'A team with this name already exists.',
        details: 'name',
      })
    : error
}

/** The unique key of a team name: names differing only in case are the same name. */
function nameKey(name: string): string {
  return name.toLowerCase()
}

export async function listTeams(
  deps: Deps,
  query: PageQuery & { member_id?: string },
): Promise<Page<TeamRecord>> {
  const window = pageWindow(query)
  const rows = await listTeamRows(deps.db, window, query.member_id)
  return toPage(
    rows,
    window.limit,
    ({ name_key: _key, ...team }) => team,
    (row) => [row.name_key, row.id],
  )
}

export async function getTeam(deps: Deps, teamId: string): Promise<TeamRecord> {
  const team = await findTeam(deps.db, teamId)
  if (team === null) throw teamNotFound()
  return team
}

export async function createTeam(
  deps: Deps,
  caller: Caller,
  input: CreateTeamBody,
  ctx: RequestContext,
): Promise<TeamRecord> {
  const team = {
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    created_at: deps.clock.now().toISOString(),
  }
  try {
    await deps.db.transaction().execute(async (tx) => {
      await insertTeam(tx, { ...team, name_key: nameKey(team.name) })
      await recordAudit(tx, deps.clock, ctx, {
        action: 'team.create',
        actor: caller.user,
        target: { type: 'team', id: team.id },
        metadata: { name: team.name },
      })
    })
  } catch (error) {
    throw nameTaken(error)
  }
  return { ...team, member_count: 0 }
}

export async function updateTeam(
  deps: Deps,
  caller: Caller,
  teamId: string,
  patch: UpdateTeamBody,
  ctx: RequestContext,
): Promise<TeamRecord> {
  try {
    return await deps.db.transaction().execute(async (tx) => {
      // The team as the update leaves it, read by the update itself: nothing is read after the
      // audit append, which locks the tree head until commit.
      const team = await updateTeamReturningRecord(tx, teamId, {
        ...patch,
        ...(patch.name !== undefined && { name_key: nameKey(patch.name) }),
        updated_at: deps.clock.now().toISOString(),
      })
      if (team === null) throw teamNotFound()
      await recordAudit(tx, deps.clock, ctx, {
        action: 'team.update',
        actor: caller.user,
        target: { type: 'team', id: teamId },
        metadata: { fields: Object.keys(patch).sort() },
      })
      return team
    })
  } catch (error) {
    throw nameTaken(error)
  }
}

/** Deletes the team and its memberships; the users stay. */
export async function deleteTeam(
  deps: Deps,
  caller: Caller,
  teamId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const team = await findTeam(tx, teamId)
    if (team === null || !(await deleteTeamRow(tx, teamId))) throw teamNotFound()
    await recordAudit(tx, deps.clock, ctx, {
      action: 'team.delete',
      actor: caller.user,
      target: { type: 'team', id: teamId },
      metadata: { name: team.name },
    })
  })
}

export async function listTeamMembers(
  deps: Deps,
  teamId: string,
  query: PageQuery,
): Promise<Page<TeamMemberRecord>> {
  const window = pageWindow(query)
  if ((await findTeam(deps.db, teamId)) === null) throw teamNotFound()
  const rows = await listTeamMemberRows(deps.db, teamId, window)
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.name, row.user_id],
  )
}

/** Adds a user, named by `user_id` or by `email` (exactly one of them). */
export async function addTeamMember(
  deps: Deps,
  caller: Caller,
  teamId: string,
  input: AddTeamMemberBody,
  ctx: RequestContext,
): Promise<TeamMemberRecord> {
  if ((input.user_id === undefined) === (input.email === undefined))
    throw invalidField('body', 'must contain exactly one of user_id, email')
  return deps.db.transaction().execute(async (tx) => {
    if ((await findTeam(tx, teamId)) === null) throw teamNotFound()
    const user =
      input.user_id !== undefined
        ? await findUserById(tx, input.user_id)
        : await findUserByEmail(tx, normalizeEmail(input.email!))
    if (user === null) throw new AppError('NOT_FOUND', { message: 'No such user.' })
    const addedAt = deps.clock.now().toISOString()
    try {
      await insertTeamMember(tx, { team_id: teamId, user_id: user.id, added_at: addedAt })
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('ALREADY_EXISTS', {
          message: 'The user is already a member of this team.',
          details: 'user_id',
        })
      // The team or the user was deleted by a concurrent request.
      if (isForeignKeyViolation(error)) throw teamNotFound()
      throw error
    }
    await recordAudit(tx, deps.clock, ctx, {
      action: 'team.member_add',
      actor: caller.user,
      target: { type: 'team', id: teamId },
      metadata: { user_id: user.id },
    })
    return { user_id: user.id, email: user.email, name: user.name, added_at: addedAt }
  })
}

export async function removeTeamMember(
  deps: Deps,
  caller: Caller,
  teamId: string,
  userId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    if ((await findTeam(tx, teamId)) === null) throw teamNotFound()
    if (!(await deleteTeamMember(tx, teamId, userId)))
      throw new AppError('NOT_FOUND', { message: 'The user is not a member of this team.' })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'team.member_remove',
      actor: caller.user,
      target: { type: 'team', id: teamId },
      metadata: { user_id: userId },
    })
  })
}
