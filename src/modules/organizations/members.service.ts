/**
 * Organization members (docs/API.md#organizations-and-invitations): listing, changing a role,
 * removing (or leaving). Nobody is added without consent: POST …/members creates an invitation
 * (invitations.service.ts). An organization always keeps an owner: every change that could take one
 * away locks the owner rows first and checks inside the same transaction (409 LAST_OWNER).
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/client.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError } from '../../errors.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { requirePermission } from './access.js'
import {
  deleteMember,
  findMember,
  insertMember,
  listMembers as listMemberRows,
  lockOwnerIds,
  updateMemberRole,
  type MemberRecord,
} from './members.repo.js'
import { assertCan, assertMayChangeRole, type Role } from './roles.js'

function memberNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such member of this organization.' })
}

function lastOwner(): AppError {
  return new AppError('LAST_OWNER', {
    details: 'Make another member an owner first, or delete the organization.',
  })
}

/** Refuses to take `userId`'s owner role away when nobody else in `owners` keeps one. */
function assertAnotherOwner(owners: string[], userId: string): void {
  if (!owners.some((id) => id !== userId)) throw lastOwner()
}

export async function listMembers(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  query: PageQuery,
): Promise<Page<MemberRecord>> {
  const window = pageWindow(query)
  await requirePermission(deps.db, organizationId, caller.user.id, 'read')
  const rows = await listMemberRows(deps.db, organizationId, window)
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.name, row.user_id],
  )
}

/**
 * Inserts a membership; a second one for the same user is 409 ALREADY_EXISTS. When the
 * organization or the user was deleted by a concurrent request, the foreign key says so: 404.
 * Invitations add their invitee through here too.
 */
export async function insertMembership(
  ex: Executor,
  organizationId: string,
  userId: string,
  role: Role,
  now: string,
): Promise<void> {
  try {
    await insertMember(ex, {
      organization_id: organizationId,
      user_id: userId,
      role,
      joined_at: now,
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('ALREADY_EXISTS', {
        message: 'This user is already a member.',
        details: 'email',
      })
    if (isForeignKeyViolation(error))
      throw new AppError('NOT_FOUND', { message: 'The organization or the user no longer exists.' })
    throw error
  }
}

export async function changeMemberRole(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  userId: string,
  role: Role,
  ctx: RequestContext,
): Promise<MemberRecord> {
  return deps.db.transaction().execute(async (tx) => {
    // The lock comes first, so the roles read below are the ones current once it is held.
    const owners = await lockOwnerIds(tx, organizationId)
    const { role: actorRole } = await requirePermission(
      tx,
      organizationId,
      caller.user.id,
      'manage_members',
    )
    const member = await findMember(tx, organizationId, userId)
    if (member === null) throw memberNotFound()
    assertMayChangeRole(actorRole, member.role, role)
    if (member.role === role) return member
    if (member.role === 'owner') assertAnotherOwner(owners, userId)
    await updateMemberRole(tx, organizationId, userId, role)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.member_role_change',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: { user_id: userId, from: member.role, to: role },
    })
    return { ...member, role }
  })
}

/**
 * Removes a member; removing yourself is leaving, which every member may do — but not the last
 * owner.
 */
export async function removeMember(
  deps: Deps,
  caller: Caller,
  organizationId: string,
  userId: string,
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const owners = await lockOwnerIds(tx, organizationId)
    const leaving = userId === caller.user.id
    const { role: actorRole } = await requirePermission(tx, organizationId, caller.user.id, 'read')
    if (!leaving) assertCan(actorRole, 'manage_members')
    const member = await findMember(tx, organizationId, userId)
    if (member === null) throw memberNotFound()
    if (!leaving) assertMayChangeRole(actorRole, member.role, null)
    if (member.role === 'owner') assertAnotherOwner(owners, userId)
    await deleteMember(tx, organizationId, userId)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'org.member_remove',
      actor: caller.user,
      target: { type: 'organization', id: organizationId },
      metadata: { user_id: userId, role: member.role, via: leaving ? 'leave' : 'remove' },
    })
  })
}
