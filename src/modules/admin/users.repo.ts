/** SQL for the administrators' view of users: the user columns plus whether MFA is on. */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { anyContains } from '../../db/text-search.js'
import { secondFactorExists } from '../../identity/second-factor.js'
import { USER_COLUMNS, toUserRecord, type UserRecord } from '../../identity/user.js'

export interface AdminUserRecord extends UserRecord {
  mfa_enabled: boolean
}

const ADMIN_USER_COLUMNS = [
  ...USER_COLUMNS,
  // Any second factor, TOTP or a passkey: the one definition.
  secondFactorExists(sql.ref('users.id')).as('mfa_enabled'),
] as const

function toAdminUserRecord(
  row: Parameters<typeof toUserRecord>[0] & { mfa_enabled: unknown },
): AdminUserRecord {
  return { ...toUserRecord(row), mfa_enabled: Boolean(row.mfa_enabled) }
}

export async function findAdminUser(ex: Executor, id: string): Promise<AdminUserRecord | null> {
  const row = await ex
    .selectFrom('users')
    .select(ADMIN_USER_COLUMNS)
    .where('users.id', '=', id)
    .executeTakeFirst()
  return row ? toAdminUserRecord(row) : null
}

/** Users newest first; with `q`, those whose email or name contains it, ignoring case. */
export async function listAdminUsers(
  ex: Executor,
  q: string | null,
  window: PageWindow,
): Promise<AdminUserRecord[]> {
  let query = ex.selectFrom('users').select(ADMIN_USER_COLUMNS)
  if (q !== null) query = query.where(anyContains(['users.email', 'users.name'], q))
  return (await newestFirst(query, window, 'users').execute()).map(toAdminUserRecord)
}
