/**
 * SQL for organizations as their members see them: every read is joined to the caller's
 * membership, so an organization the caller does not belong to simply is not found.
 */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'
import { byName, type PageWindow } from '../../db/keyset.js'
import { lockRowsInIdOrder } from '../../db/row-locks.js'
import type { Role } from './roles.js'

/** An organization with the role of the member it was read for. */
export interface OrganizationRecord {
  id: string
  name: string
  slug: string
  plan: string
  role: Role
  created_at: Timestamp
}

const ORGANIZATION_COLUMNS = [
  'organizations.id',
  'organizations.name',
  'organizations.slug',
  'organizations.plan',
  'organization_members.role',
  'organizations.created_at',
] as const

function asRecord(row: Omit<OrganizationRecord, 'role'> & { role: string }): OrganizationRecord {
  return { ...row, role: row.role as Role }
}

function membershipsOf(ex: Executor, userId: string) {
  return ex
    .selectFrom('organizations')
    .innerJoin('organization_members', 'organization_members.organization_id', 'organizations.id')
    .select(ORGANIZATION_COLUMNS)
    .where('organization_members.user_id', '=', userId)
}

/**
 * The organization with the user's role in it; null when it does not exist or they are not a
 * member.
 */
export async function findOrganizationOfMember(
  ex: Executor,
  organizationId: string,
  userId: string,
): Promise<OrganizationRecord | null> {
  const row = await membershipsOf(ex, userId)
    .where('organizations.id', '=', organizationId)
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/** `reachable`: an API token's organization boundary — only these organizations. */
export async function listOrganizationsOfMember(
  ex: Executor,
  userId: string,
  window: PageWindow,
  reachable: ReadonlySet<string> | null = null,
): Promise<OrganizationRecord[]> {
  if (reachable !== null && reachable.size === 0) return []
  const query =
    reachable === null
      ? membershipsOf(ex, userId)
      : membershipsOf(ex, userId).where('organizations.id', 'in', [...reachable])
  const rows = await byName(query, window, 'organizations').execute()
  return rows.map(asRecord)
}

export interface NewOrganization {
  id: string
  name: string
  slug: string
  created_at: Timestamp
}

export async function insertOrganization(
  ex: Executor,
  organization: NewOrganization,
): Promise<void> {
  await ex
    .insertInto('organizations')
    .values({ ...organization, updated_at: organization.created_at })
    .execute()
}

/** The slugs that start with `prefix`. */
export async function findSlugsStartingWith(ex: Executor, prefix: string): Promise<string[]> {
  // Slugs hold only [a-z0-9-], so the prefix has no LIKE wildcard to escape.
  const rows = await ex
    .selectFrom('organizations')
    .select('slug')
    .where('slug', 'like', `${prefix}%`)
    .execute()
  return rows.map((r) => r.slug)
}

export async function updateOrganization(
  ex: Executor,
  organizationId: string,
  changes: { name?: string; slug?: string; updated_at: Timestamp },
): Promise<void> {
  await ex.updateTable('organizations').set(changes).where('id', '=', organizationId).execute()
}

/**
 * Locks what deleting the organization deletes with it, its collections and then its links, in id
 * order (db/row-locks.ts): the deletion's cascade would take them in storage order.
 */
export async function lockOrganizationCollectionsAndLinks(
  ex: Executor,
  organizationId: string,
): Promise<void> {
  await lockRowsInIdOrder(ex, 'collections', sql<boolean>`organization_id = ${organizationId}`)
  await lockRowsInIdOrder(ex, 'links', sql<boolean>`organization_id = ${organizationId}`)
}

export async function deleteOrganization(ex: Executor, organizationId: string): Promise<boolean> {
  const result = await ex
    .deleteFrom('organizations')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}
