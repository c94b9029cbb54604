/**
 * Collections (docs/API.md#collections): a person's or an organization's named, ordered set of
 * links. Shared with teams (`team_ids`), a collection shows its links to their members, read-only,
 * without sharing each link (links/visibility.ts); a team removed from it takes the tags of its
 * members who no longer see a link off that link. Deleting a collection never deletes its links.
 * Who may change one mirrors links: the owner of a personal collection; the creator (while a
 * member) and the owners and admins of an organization's.
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation } from '../../db/client.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { recordAudits, type AuditEntry } from '../audit/service.js'
import { organizationNotFound, requirePermission } from '../organizations/access.js'
import { can, type Role } from '../organizations/roles.js'
import { assertReachable } from '../links/service.js'
import { shareableTeams, teamNotFound } from '../links/shares.service.js'
import { dropTagsOfNonReadersInCollection } from '../links/ownership.repo.js'
import {
  addCollectionTeams,
  deleteCollection as deleteCollectionRow,
  findTeamsOfCollections,
  findVisibleCollection,
  insertCollection,
  listVisibleCollections,
  lockCollection,
  lockLinksOfCollection,
  lockLinksOfCollectionInIdOrder,
  removeCollectionTeams,
  replaceCollectionLinks,
  updateCollection as updateCollectionRow,
  type CollectionRecord,
} from './repo.js'
import type {
  CollectionList,
  CollectionView,
  CreateCollectionBody,
  SetCollectionLinksBody,
  UpdateCollectionBody,
} from './schemas.js'

const LIST_LIMIT = 1000

function collectionNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such collection.' })
}

function mayChange(collection: CollectionRecord, userId: string): boolean {
  if (collection.organization_id === null) return collection.user_id === userId
  return (
    collection.role !== null &&
    (collection.created_by === userId || can(collection.role as Role, 'manage_links'))
  )
}

function toView(
  collection: CollectionRecord,
  userId: string,
  teams: Map<string, Array<{ id: string }>>,
): CollectionView {
  return {
    id: collection.id,
    name: collection.name,
    description: collection.description,
    organization_id: collection.organization_id,
    team_ids: (teams.get(collection.id) ?? []).map((team) => team.id),
    link_count: collection.link_count,
    can_change: mayChange(collection, userId),
    created_at: collection.created_at,
    updated_at: collection.updated_at,
  }
}

async function viewOf(ex: Executor, userId: string, id: string): Promise<CollectionView> {
  const collection = await findVisibleCollection(ex, userId, id)
  if (collection === null) throw collectionNotFound()
  return toView(collection, userId, await findTeamsOfCollections(ex, [id]))
}

/** The collection, when the caller sees it (within a token's boundary) and may change it. */
async function changeable(ex: Executor, caller: Caller, id: string): Promise<CollectionRecord> {
  const collection = await findVisibleCollection(ex, caller.user.id, id)
  if (collection === null) throw collectionNotFound()
  try {
    assertReachable(caller, collection.organization_id)
  } catch {
    throw collectionNotFound()
  }
  if (!mayChange(collection, caller.user.id))
    throw new AppError('FORBIDDEN', {
      message:
        "Only the collection's owner — or for an organization's, its creator and the organization's owners and admins — may change it.",
    })
  return collection
}

export async function listCollections(deps: Deps, caller: Caller): Promise<CollectionList> {
  const rows = (await listVisibleCollections(deps.db, caller.user.id, LIST_LIMIT)).filter(
    (row) =>
      row.organization_id === null ||
      caller.grant?.organizations == null ||
      caller.grant.organizations.has(row.organization_id),
  )
  const teams = await findTeamsOfCollections(
    deps.db,
    rows.map((row) => row.id),
  )
  return { items: rows.map((row) => toView(row, caller.user.id, teams)) }
}

export async function getCollection(
  deps: Deps,
  caller: Caller,
  id: string,
): Promise<CollectionView> {
  const view = await viewOf(deps.db, caller.user.id, id)
  try {
    assertReachable(caller, view.organization_id)
  } catch {
    throw collectionNotFound()
  }
  return view
}

/**
 * Sets the collection's teams; returns the audit entries of the difference (`collection.share`,
 * `.unshare`), for the caller to record as its transaction's last statement.
 */
async function setTeams(
  tx: Executor,
  caller: Caller,
  id: string,
  teamIds: readonly string[],
): Promise<AuditEntry[]> {
  const current = (await findTeamsOfCollections(tx, [id])).get(id) ?? []
  const had = new Set(current.map((team) => team.id))
  const wanted = new Set(teamIds)
  const added = await shareableTeams(
    tx,
    caller,
    teamIds.filter((teamId) => !had.has(teamId)),
  )
  const removed = current.filter((team) => !wanted.has(team.id))
  try {
    await addCollectionTeams(
      tx,
      id,
      added.map((team) => team.id),
    )
  } catch (error) {
    if (isForeignKeyViolation(error)) throw teamNotFound()
    throw error
  }
  await removeCollectionTeams(
    tx,
    id,
    removed.map((team) => team.id),
  )
  if (removed.length > 0) {
    // The removed teams' members who no longer see a link of it lose their tags on it. The
    // collection, then its links in id order, are locked first, as every writer of a collection
    // and its links takes them (db/row-locks.ts).
    await lockCollection(tx, id)
    await lockLinksOfCollectionInIdOrder(tx, id)
    await dropTagsOfNonReadersInCollection(
      tx,
      id,
      removed.map((team) => team.id),
    )
  }
  return (
    [
      ['collection.share', added],
      ['collection.unshare', removed],
    ] as const
  )
    .filter(([, teams]) => teams.length > 0)
    .map(([action, teams]) => ({
      action,
      actor: caller.user,
      target: { type: 'collection', id },
      metadata: { team_ids: teams.map((team) => team.id), teams: teams.map((team) => team.name) },
    }))
}

export async function createCollection(
  deps: Deps,
  caller: Caller,
  body: CreateCollectionBody,
  ctx: RequestContext,
): Promise<CollectionView> {
  const userId = caller.user.id
  const organizationId = body.organization_id ?? null
  assertReachable(caller, organizationId)
  const id = newId()
  return deps.db.transaction().execute(async (tx) => {
    if (organizationId !== null) await requirePermission(tx, organizationId, userId, 'share_links')
    try {
      await insertCollection(tx, {
        id,
        user_id: organizationId === null ? userId : null,
        organization_id: organizationId,
        created_by: userId,
        name: body.name,
        description: body.description ?? null,
        created_at: deps.clock.now().toISOString(),
      })
    } catch (error) {
      if (isForeignKeyViolation(error)) throw organizationNotFound()
      throw error
    }
    const shares = body.team_ids === undefined ? [] : await setTeams(tx, caller, id, body.team_ids)
    const view = await viewOf(tx, userId, id)
    await recordAudits(tx, deps.clock, ctx, shares)
    return view
  })
}

export async function updateCollection(
  deps: Deps,
  caller: Caller,
  id: string,
  body: UpdateCollectionBody,
  ctx: RequestContext,
): Promise<CollectionView> {
  return deps.db.transaction().execute(async (tx) => {
    await changeable(tx, caller, id)
    await updateCollectionRow(tx, id, {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.description !== undefined && { description: body.description }),
      updated_at: deps.clock.now().toISOString(),
    })
    const shares = body.team_ids === undefined ? [] : await setTeams(tx, caller, id, body.team_ids)
    const view = await viewOf(tx, caller.user.id, id)
    await recordAudits(tx, deps.clock, ctx, shares)
    return view
  })
}

export async function deleteCollection(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    await changeable(tx, caller, id)
    if (!(await deleteCollectionRow(tx, id))) throw collectionNotFound()
  })
}

/**
 * Sets the collection's links in the given order. Each must be one the collection's owner owns
 * (the person's own links, or the organization's): 404 on `link_ids` otherwise, as for a link one
 * does not see. Atomic: the collection's row is locked first (repo.ts lockCollection), so
 * concurrent requests leave exactly one request's list.
 */
export async function setCollectionLinks(
  deps: Deps,
  caller: Caller,
  id: string,
  body: SetCollectionLinksBody,
): Promise<CollectionView> {
  return deps.db.transaction().execute(async (tx) => {
    const collection = await changeable(tx, caller, id)
    if (!(await lockCollection(tx, id))) throw collectionNotFound()
    const owned = await lockLinksOfCollection(tx, collection, body.link_ids)
    if (owned.size !== body.link_ids.length)
      throw new AppError('NOT_FOUND', {
        message: 'No such link among the ones this collection may hold.',
        details: 'link_ids',
      })
    await replaceCollectionLinks(tx, id, body.link_ids)
    await updateCollectionRow(tx, id, { updated_at: deps.clock.now().toISOString() })
    return viewOf(tx, caller.user.id, id)
  })
}
