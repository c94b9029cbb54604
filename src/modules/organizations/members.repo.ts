/** SQL for organization memberships. */
import type { Executor, Timestamp } from '../../db/schema.js'
import { byName, type PageWindow } from '../../db/keyset.js'
import type { Role } from './roles.js'

export interface MemberRecord {
  user_id: string
  email: string
  name: string
  role: Role
  joined_at: Timestamp
}

function membersOf(ex: Executor, organizationId: string) {
  return ex
    .selectFrom('organization_members')
    .innerJoin('users', 'users.id', 'organization_members.user_id')
    .select([
      'organization_members.user_id',
      'users.email',
      'users.name',
      'organization_members.role',
      'organization_members.joined_at',
    ])
    .where('organization_members.organization_id', '=', organizationId)
}

function asRecord(row: Omit<MemberRecord, 'role'> & { role: string }): MemberRecord {
  return { ...row, role: row.role as Role }
}

export async function findMember(
  ex: Executor,
  organizationId: string,
  userId: string,
): Promise<MemberRecord | null> {
  const row = await membersOf(ex, organizationId)
    .where('organization_members.user_id', '=', userId)
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

export async function findMemberByEmail(
  ex: Executor,
  organizationId: string,
  email: string,
): Promise<MemberRecord | null> {
  const row = await membersOf(ex, organizationId)
    .where('users.email', '=', email)
    .executeTakeFirst()
  return row ? asRecord(row) : null
}

/** Members by name (ignoring case), then user id. */
export async function listMembers(
  ex: Executor,
  organizationId: string,
  window: PageWindow,
): Promise<MemberRecord[]> {
  return (await byName(membersOf(ex, organizationId), window, 'users').execute()).map(asRecord)
}

export async function insertMember(
  ex: Executor,
  member: { organization_id: string; user_id: string; role: Role; joined_at: Timestamp },
): Promise<void> {
  await ex.insertInto('organization_members').values(member).execute()
}

export async function updateMemberRole(
  ex: Executor,
  organizationId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await ex
    .updateTable('organization_members')
    .set({ role })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute()
}

export async function deleteMember(
  ex: Executor,
  organizationId: string,
  userId: string,
): Promise<void> {
  await ex
    .deleteFrom('organization_members')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute()
}

/**
 * The owners of the organization, their rows locked until the transaction ends (PostgreSQL;
 * SQLite serialises writers). Every change that can take an owner away takes this lock first, so
 * two concurrent demotions of the last two owners cannot both see "another owner remains".
 */
export async function lockOwnerIds(ex: Executor, organizationId: string): Promise<string[]> {
  const rows = await ex
    .selectFrom('organization_members')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .orderBy('user_id')
    .forUpdate()
    .execute()
  return rows.map((r) => r.user_id)
}

/**
 * The owner rows of every organization the user owns, locked like lockOwnerIds: what deleting the
 * user would take away.
 */
export async function lockOwnersOfOrganizationsOwnedBy(
  ex: Executor,
  userId: string,
): Promise<Array<{ organization_id: string; user_id: string }>> {
  return ex
    .selectFrom('organization_members')
    .select(['organization_id', 'user_id'])
    .where('role', '=', 'owner')
    .where('organization_id', 'in', (eb) =>
      eb
        .selectFrom('organization_members')
        .select('organization_id')
        .where('user_id', '=', userId)
        .where('role', '=', 'owner'),
    )
    .orderBy('organization_id')
    .orderBy('user_id')
    .forUpdate()
    .execute()
}

export async function findSlugs(ex: Executor, organizationIds: string[]): Promise<string[]> {
  if (organizationIds.length === 0) return []
  const rows = await ex
    .selectFrom('organizations')
    .select('slug')
    .where('id', 'in', organizationIds)
    .orderBy('slug')
    .execute()
  return rows.map((r) => r.slug)
}
