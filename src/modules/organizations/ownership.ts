/**
 * The invariant that outlives users: an organization always keeps an owner. User deletion (self or
 * by an administrator) asks here first.
 */
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { findSlugs, lockOwnersOfOrganizationsOwnedBy } from './members.repo.js'

/**
 * For deleting a user: refuses (409 LAST_OWNER) while they are the only owner of an organization,
 * whose members would otherwise be left with nobody able to manage or delete it. Call it inside
 * the deleting transaction: the owner rows stay locked until it ends.
 */
export async function assertNoOrganizationLosesItsLastOwner(
  ex: Executor,
  userId: string,
): Promise<void> {
  const owners = await lockOwnersOfOrganizationsOwnedBy(ex, userId)
  const ownedAlone = [...new Set(owners.map((o) => o.organization_id))].filter(
    (organizationId) =>
      !owners.some((o) => o.organization_id === organizationId && o.user_id !== userId),
  )
  if (ownedAlone.length === 0) return
  throw new AppError('LAST_OWNER', {
    message: 'The user is the only owner of an organization.',
    details: `Only owner of: ${(await findSlugs(ex, ownedAlone)).join(', ')}. Make another member an owner, or delete the organization, first.`,
  })
}
