/**
 * SCIM Groups over Switchboard's teams (RFC 7643 §4.2): displayName is the team name (unique
 * ignoring case: 409 uniqueness), members are user ids. Written through the teams repo, audited
 * as "SCIM (<credential name>)". PATCH applies its operations to the rendered Group (patch.ts),
 * then stores the difference: the new name and the members added and removed.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/client.js'
import { newId } from '../../lib/ids.js'
import { isDisplayText } from '../../lib/schema-types.js'
import { recordAudit } from '../audit/service.js'
import {
  deleteTeam,
  deleteTeamMember,
  insertTeam,
  insertTeamMember,
  updateTeam,
} from '../admin/teams.repo.js'
import { SCHEMA } from './discovery.js'
import { badRequest, conflict, notFound, ScimError } from './errors.js'
import { filterParam, keyOf, matches, type Filter } from './filter.js'
import type { ScimActor } from './http.js'
import { listResponse, listWindow, projection } from './list.js'
import { applyPatch } from './patch.js'
import {
  existingUserIds,
  findTeamIdByName,
  listScimGroups,
  type ScimGroupRow,
} from './groups.repo.js'
import type { ListQuery } from './users.service.js'

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

function auditActor(actor: ScimActor) {
  return { id: `scim:${actor.credential.id}`, email: `SCIM (${actor.credential.name})` }
}

export function toScimGroup(row: ScimGroupRow, baseUrl: string): Record<string, unknown> {
  return {
    schemas: [SCHEMA.group],
    id: row.id,
    displayName: row.name,
    members: row.members.map((m) => ({
      value: m.user_id,
      display: m.name,
      $ref: `${baseUrl}/Users/${m.user_id}`,
      type: 'User',
    })),
    meta: {
      resourceType: 'Group',
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${baseUrl}/Groups/${row.id}`,
    },
  }
}

interface GroupModel {
  displayName: string
  memberIds: string[]
}

function get(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined
  const key = keyOf(object as Record<string, unknown>, name)
  return key === undefined ? undefined : (object as Record<string, unknown>)[key]
}

function fromScimGroup(resource: unknown): GroupModel {
  const displayName = get(resource, 'displayName')
  if (
    typeof displayName !== 'string' ||
    displayName.trim() === '' ||
    displayName.trim().length > 100 ||
    !isDisplayText(displayName)
  ) {
    throw badRequest('displayName is required: 1 to 100 printable characters.')
  }
  const members = get(resource, 'members') ?? []
  if (!Array.isArray(members)) throw badRequest('members must be an array.')
  const memberIds = members.map((member: unknown) => {
    const value = get(member, 'value')
    if (typeof value !== 'string' || value === '' || value.length > 64 || !isDisplayText(value)) {
      throw badRequest('Every member needs a value (a User id).')
    }
    return value
  })
  return { displayName: displayName.trim(), memberIds: [...new Set(memberIds)] }
}

async function loadGroup(ex: Executor, id: string): Promise<ScimGroupRow> {
  const [row] = await listScimGroups(ex, [id])
  if (row === undefined) throw notFound('No such Group.')
  return row
}

export async function listGroups(deps: Deps, query: ListQuery, baseUrl: string) {
  const window = listWindow(query)
  const filter: Filter | null = filterParam(query.filter)
  let rows: ScimGroupRow[]
  if (
    filter?.op === 'eq' &&
    filter.attrPath.toLowerCase() === 'displayname' &&
    typeof filter.compValue === 'string'
  ) {
    // Okta and Entra look a group up by name before creating it: one indexed lookup.
    const id = await findTeamIdByName(deps.db, filter.compValue)
    rows = id === null ? [] : await listScimGroups(deps.db, [id])
  } else {
    rows = await listScimGroups(deps.db)
  }
  const resources = rows
    .map((row) => toScimGroup(row, baseUrl))
    .filter((resource) => filter === null || matches(filter, resource))
  return listResponse(resources, window, projection(query))
}

export async function getGroup(deps: Deps, id: string, query: ListQuery, baseUrl: string) {
  return projection(query)(toScimGroup(await loadGroup(deps.db, id), baseUrl))
}

async function assertUsersExist(ex: Executor, ids: string[]): Promise<void> {
  const found = await existingUserIds(ex, ids)
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length > 0)
    throw new ScimError(400, `No such User: ${missing.slice(0, 5).join(', ')}.`, 'invalidValue')
}

/** A write's unique-index violation, as 409 uniqueness naming the displayName that collided. */
async function uniquely<T>(displayName: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict('A group with this displayName already exists.', displayName)
    throw error
  }
}

export async function createGroup(deps: Deps, actor: ScimActor, body: unknown, baseUrl: string) {
  const model = fromScimGroup(body)
  const id = newId()
  await uniquely(model.displayName, () =>
    deps.db.transaction().execute(async (tx) => {
      await assertUsersExist(tx, model.memberIds)
      const now = deps.clock.now().toISOString()
      await insertTeam(tx, {
        id,
        name: model.displayName,
        name_key: model.displayName.toLowerCase(),
        description: null,
        created_at: now,
      })
      for (const userId of model.memberIds)
        await insertTeamMember(tx, { team_id: id, user_id: userId, added_at: now })
      await recordAudit(tx, deps.clock, actor.ctx, {
        action: 'scim.group_create',
        actor: auditActor(actor),
        target: { type: 'team', id },
        metadata: { name: model.displayName, members: model.memberIds.length },
      })
    }),
  )
  return toScimGroup(await loadGroup(deps.db, id), baseUrl)
}

/** Stores a Group's name and members as given, recording what changed. */
async function writeGroup(
  deps: Deps,
  actor: ScimActor,
  current: ScimGroupRow,
  model: GroupModel,
  action: string,
): Promise<void> {
  const before = new Set(current.members.map((m) => m.user_id))
  const after = new Set(model.memberIds)
  const added = model.memberIds.filter((id) => !before.has(id))
  const removed = [...before].filter((id) => !after.has(id))
  await uniquely(model.displayName, () =>
    deps.db.transaction().execute(async (tx) => {
      await assertUsersExist(tx, added)
      const now = deps.clock.now().toISOString()
      if (
        !(await updateTeam(tx, current.id, {
          name: model.displayName,
          name_key: model.displayName.toLowerCase(),
          updated_at: now,
        }))
      ) {
        throw notFound('No such Group.')
      }
      for (const userId of added)
        await insertTeamMember(tx, { team_id: current.id, user_id: userId, added_at: now })
      for (const userId of removed) await deleteTeamMember(tx, current.id, userId)
      await recordAudit(tx, deps.clock, actor.ctx, {
        action,
        actor: auditActor(actor),
        target: { type: 'team', id: current.id },
        metadata: {
          ...(model.displayName !== current.name && { name: model.displayName }),
          added,
          removed,
        },
      })
    }),
  )
}

export async function replaceGroup(
  deps: Deps,
  actor: ScimActor,
  id: string,
  body: unknown,
  baseUrl: string,
) {
  const current = await loadGroup(deps.db, id)
  await writeGroup(deps, actor, current, fromScimGroup(body), 'scim.group_replace')
  return toScimGroup(await loadGroup(deps.db, id), baseUrl)
}

/**
 * PATCH answers 204 (what Okta and Entra expect for Groups; RFC 7644 §3.5.2 allows it), or 200
 * with the resource when the request names `attributes` or `excludedAttributes` (§3.5.2: the
 * client asked for the resource back). The result is null when 204 is the answer.
 */
export async function patchGroup(
  deps: Deps,
  actor: ScimActor,
  id: string,
  body: unknown,
  baseUrl: string,
  query: ListQuery = {},
): Promise<Record<string, unknown> | null> {
  const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const schemas = request.schemas
  if (Array.isArray(schemas) && schemas.length > 0 && !schemas.includes(PATCH_SCHEMA)) {
    throw new ScimError(400, `A PATCH body names the schema ${PATCH_SCHEMA}.`, 'invalidSyntax')
  }
  const current = await loadGroup(deps.db, id)
  const patched = applyPatch(
    toScimGroup(current, baseUrl),
    request.Operations ?? request.operations,
  )
  await writeGroup(deps, actor, current, fromScimGroup(patched), 'scim.group_patch')
  if (query.attributes === undefined && query.excludedAttributes === undefined) return null
  return projection(query)(toScimGroup(await loadGroup(deps.db, id), baseUrl))
}

export async function deleteGroup(deps: Deps, actor: ScimActor, id: string): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const current = await loadGroup(tx, id)
    await deleteTeam(tx, id)
    await recordAudit(tx, deps.clock, actor.ctx, {
      action: 'scim.group_delete',
      actor: auditActor(actor),
      target: { type: 'team', id },
      metadata: { name: current.name },
    })
  })
}
