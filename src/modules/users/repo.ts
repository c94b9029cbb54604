/**
 * SQL for the users table. The password hash is read only by the functions that verify it; every
 * other read selects USER_COLUMNS, which carry `has_password` as a computed flag instead.
 */
import { sql } from 'kysely'
import { lockRowsInIdOrder } from '../../db/row-locks.js'
import type { Executor, NewUserRow, Timestamp, UserUpdate } from '../../db/schema.js'
import { USER_COLUMNS, toUserRecord, type UserRecord } from '../../identity/user.js'

export async function findUserById(ex: Executor, id: string): Promise<UserRecord | null> {
  const row = await ex
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toUserRecord(row) : null
}

export async function findUserByEmail(ex: Executor, email: string): Promise<UserRecord | null> {
  const row = await ex
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('email', '=', email)
    .executeTakeFirst()
  return row ? toUserRecord(row) : null
}

export interface PasswordCandidate {
  id: string
  password_hash: string | null
  disabled: boolean
}

/** The one read that returns a password hash: for verifying a password, never for a response. */
export async function findPasswordCandidateByEmail(
  ex: Executor,
  email: string,
): Promise<PasswordCandidate | null> {
  const row = await ex
    .selectFrom('users')
    .select(['id', 'password_hash', 'disabled'])
    .where('email', '=', email)
    .executeTakeFirst()
  return row
    ? { id: row.id, password_hash: row.password_hash, disabled: Boolean(row.disabled) }
    : null
}

/**
 * The columns every password write sets together: the hash and when it was written, so
 * the Security page's "last changed" cannot fall behind the password itself.
 */
export function passwordColumns(
  hash: string,
  at: Timestamp,
): { password_hash: string; password_changed_at: Timestamp } {
  return { password_hash: hash, password_changed_at: at }
}

export interface PasswordStatus {
  has_password: boolean
  /** Null without a password, or for one set before migration 0032 recorded the time. */
  changed_at: Timestamp | null
}

export async function findPasswordStatus(
  ex: Executor,
  userId: string,
): Promise<PasswordStatus | null> {
  const row = await ex
    .selectFrom('users')
    .select([
      sql<
        boolean | 0 | 1
      >`(${sql.ref('password_hash')} is not null and ${sql.ref('password_hash')} <> '')`.as(
        'has_password',
      ),
      'password_changed_at',
    ])
    .where('id', '=', userId)
    .executeTakeFirst()
  if (row === undefined) return null
  const hasPassword = Boolean(row.has_password)
  return { has_password: hasPassword, changed_at: hasPassword ? row.password_changed_at : null }
}

export async function insertUser(ex: Executor, row: NewUserRow): Promise<UserRecord> {
  const inserted = await ex
    .insertInto('users')
    .values(row)
    .returning(USER_COLUMNS)
    .executeTakeFirstOrThrow()
  return toUserRecord(inserted)
}

export async function updateUser(
  ex: Executor,
  id: string,
  changes: UserUpdate,
): Promise<UserRecord | null> {
  const row = await ex
    .updateTable('users')
    .set(changes)
    .where('id', '=', id)
    .returning(USER_COLUMNS)
    .executeTakeFirst()
  return row ? toUserRecord(row) : null
}

/**
 * Locks the collections and links that deleting the user deletes (their personal ones) or changes
 * (those they created: `created_by` becomes null), collections first, each in id order
 * (db/row-locks.ts): the deletion's cascades would take them in storage order.
 */
export async function lockUserCollectionsAndLinks(ex: Executor, id: string): Promise<void> {
  const theirs = sql<boolean>`(user_id = ${id} or created_by = ${id})`
  await lockRowsInIdOrder(ex, 'collections', theirs)
  await lockRowsInIdOrder(ex, 'links', theirs)
}

export async function deleteUser(ex: Executor, id: string): Promise<boolean> {
  const result = await ex.deleteFrom('users').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function anyUserExists(ex: Executor): Promise<boolean> {
  const row = await ex
    .selectFrom('users')
    .select(sql<number>`1`.as('one'))
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Locks the user's row until the transaction ends (PostgreSQL; SQLite serialises writers), to
 * serialise per-user quota checks such as the API token limit.
 */
export async function lockUser(ex: Executor, userId: string): Promise<void> {
  await ex.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
}

/**
 * The ids of the active administrators, locked until the transaction ends (PostgreSQL; SQLite
 * serialises writers). Two concurrent demotions or deletions therefore cannot both see "another
 * admin remains" and together leave none (docs/API.md#administering-users LAST_ADMIN).
 */
export async function lockActiveAdminIds(ex: Executor): Promise<string[]> {
  const rows = await ex
    .selectFrom('users')
    .select('id')
    .where('is_admin', '=', true)
    .where('disabled', '=', false)
    .orderBy('id')
    .forUpdate()
    .execute()
  return rows.map((r) => r.id)
}
