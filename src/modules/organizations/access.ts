/**
 * The gate in front of every organization operation: membership first (a non-member — or an id
 * that names nothing — is 404, so outsiders cannot tell an organization exists), then the role
 * table (403 FORBIDDEN for a member whose role lacks the permission).
 */
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { findOrganizationOfMember, type OrganizationRecord } from './repo.js'
import { assertCan, type Permission } from './roles.js'

export function organizationNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such organization.' })
}

export async function requirePermission(
  ex: Executor,
  organizationId: string,
  userId: string,
  permission: Permission,
): Promise<OrganizationRecord> {
  const organization = await findOrganizationOfMember(ex, organizationId, userId)
  if (organization === null) throw organizationNotFound()
  assertCan(organization.role, permission)
  return organization
}
