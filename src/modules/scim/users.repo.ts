/** SQL for SCIM's view of accounts: the users table joined to what SCIM stores beside it. */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'

export interface ScimUserRow {
  id: string
  email: string
  name: string
  disabled: boolean
  is_admin: boolean
  created_at: Timestamp
  updated_at: Timestamp
  /** null for an account SCIM has not touched: its userName is its email. */
  user_name: string | null
  external_id: string | null
  given_name: string | null
  family_name: string | null
  employee_number: string | null
  department: string | null
  manager_id: string | null
}

export interface ScimFields {
  user_name: string
  external_id: string | null
  given_name: string | null
  family_name: string | null
  employee_number: string | null
  department: string | null
  manager_id: string | null
}

function base(ex: Executor) {
  return ex
    .selectFrom('users')
    .leftJoin('scim_users', 'scim_users.user_id', 'users.id')
    .select([
      'users.id',
      'users.email',
      'users.name',
      'users.disabled',
      'users.is_admin',
      'users.created_at',
      'users.updated_at',
      'scim_users.user_name',
      'scim_users.external_id',
      'scim_users.given_name',
      'scim_users.family_name',
      'scim_users.employee_number',
      'scim_users.department',
      'scim_users.manager_id',
    ])
}

type Raw = Omit<ScimUserRow, 'disabled' | 'is_admin'> & { disabled: unknown; is_admin: unknown }

function toRow(row: Raw): ScimUserRow {
  return { ...row, disabled: Boolean(row.disabled), is_admin: Boolean(row.is_admin) }
}

export async function findScimUser(ex: Executor, id: string): Promise<ScimUserRow | null> {
  const row = await base(ex).where('users.id', '=', id).executeTakeFirst()
  return row === undefined ? null : toRow(row)
}

/** Every account in a stable order (creation, then id): SCIM pages are slices of this order. */
export async function listAllScimUsers(ex: Executor): Promise<ScimUserRow[]> {
  return (await base(ex).orderBy('users.created_at').orderBy('users.id').execute()).map(toRow)
}

/**
 * The account a userName names, ignoring case: SCIM's userName where SCIM set one, else the
 * email. Two indexed lookups (the scim_users key, the users email key).
 */
export async function findScimUserByUserName(ex: Executor, userName: string): Promise<ScimUserRow | null> {
  const lower = userName.toLowerCase()
  const row = await base(ex)
    .where((eb) =>
      eb.or([eb('scim_users.user_name_lower', '=', lower), eb.and([eb('users.email', '=', lower), eb('scim_users.user_id', 'is', null)])]),
    )
    .orderBy('users.created_at')
    .executeTakeFirst()
  return row === undefined ? null : toRow(row)
}

export async function findScimUserByExternalId(ex: Executor, externalId: string): Promise<ScimUserRow | null> {
  const row = await base(ex).where('scim_users.external_id', '=', externalId).executeTakeFirst()
  return row === undefined ? null : toRow(row)
}

export async function userIdByEmail(ex: Executor, email: string): Promise<string | null> {
  return (await ex.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst())?.id ?? null
}

export async function upsertScimFields(ex: Executor, userId: string, fields: ScimFields): Promise<void> {
  const values = { ...fields, user_name_lower: fields.user_name.toLowerCase() }
  await ex
    .insertInto('scim_users')
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute()
}

export async function hasScimFields(ex: Executor, userId: string): Promise<boolean> {
  return (
    (await ex
      .selectFrom('scim_users')
      .select(sql<number>`1`.as('one'))
      .where('user_id', '=', userId)
      .executeTakeFirst()) !== undefined
  )
}
