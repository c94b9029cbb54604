/**
 * Who may do what in an organization (docs/API.md#who-may-do-what), in one table. Every
 * organization operation asks this module; none decides on roles by itself.
 *
 *   owner   everything: the organization, its billing, its deletion, and other owners
 *   admin   update the organization, manage members and invitations — except anything that
 *           involves an owner (granting, changing or removing the owner role) — and change or
 *           delete any link shared with the organization
 *   member  read the organization and its members; share links with it (and change or delete
 *           the ones they created, which the links module decides)
 *
 * Non-members are answered 404 before this table is consulted (they may not learn the
 * organization exists); a member lacking a permission gets 403 FORBIDDEN.
 */
import { AppError } from '../../errors.js'

export const ROLES = ['owner', 'admin', 'member'] as const
export type Role = (typeof ROLES)[number]

export type Permission =
  | 'read'
  | 'update'
  | 'delete'
  | 'billing'
  | 'manage_members'
  | 'manage_invitations'
  /** Grant the owner role, or change or remove an owner (membership or invitation). */
  | 'manage_owners'
  /** Create a link shared with the organization. */
  | 'share_links'
  /** Change or delete any link shared with the organization, not only one's own. */
  | 'manage_links'

const PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set<Permission>([
    'read',
    'update',
    'delete',
    'billing',
    'manage_members',
    'manage_invitations',
    'manage_owners',
    'share_links',
    'manage_links',
  ]),
  admin: new Set<Permission>([
    'read',
    'update',
    'manage_members',
    'manage_invitations',
    'share_links',
    'manage_links',
  ]),
  member: new Set<Permission>(['read', 'share_links']),
}

export function can(role: Role, permission: Permission): boolean {
  return PERMISSIONS[role].has(permission)
}

export function assertCan(role: Role, permission: Permission): void {
  if (!can(role, permission))
    throw new AppError('FORBIDDEN', {
      message: `Your role in this organization (${role}) does not allow this.`,
    })
}

/**
 * A change of someone's role from `from` to `to` (null: not a member before / after), made by a
 * member whose role is `actor`: the membership permission, plus the owner permission whenever
 * an owner is involved on either side.
 */
export function assertMayChangeRole(
  actor: Role,
  from: Role | null,
  to: Role | null,
  permission: Permission = 'manage_members',
): void {
  assertCan(actor, permission)
  if (from === 'owner' || to === 'owner') assertCan(actor, 'manage_owners')
}
