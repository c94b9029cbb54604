/**
 * SQL for the users table. The password hash is read only by the functions that verify it; every
 * other read selects USER_COLUMNS, which carry `has_password` as a computed flag instead.
 */
import { sql } from 'kysely'
import type { Executor, NewUserRow, Timestamp, UserUpdate } from '../../db/schema.js'

export interface UserRecord {
  id: string
  email: string
  name: string
  user_key: string
  is_admin: boolean
  disabled: boolean
  language: string
  theme: string
  ai_suggestions_enabled: boolean
  email_pending: string | null
  oidc_provider: string | null
  oidc_sub: string | null
  has_password: boolean
  created_at: Timestamp
  updated_at: Timestamp
  last_login_at: Timestamp | null
}

/** The columns of a UserRecord, usable in any query that has `users` in scope. */
export const USER_COLUMNS = [
  'users.id',
  'users.email',
  'users.name',
  'users.user_key',
  'users.is_admin',
  'users.disabled',
  'users.language',
  'users.theme',
  'users.ai_suggestions_enabled',
  'users.email_pending',
  'users.oidc_provider',
  'users.oidc_sub',
  'users.created_at',
  'users.updated_at',
  'users.last_login_at',
  sql<
    boolean | 0 | 1
  >`(${sql.ref('users.password_hash')} is not null and ${sql.ref('users.password_hash')} <> '')`.as(
    'has_password',
  ),
] as const

type RawUser = Omit<
  UserRecord,
  'is_admin' | 'disabled' | 'ai_suggestions_enabled' | 'has_password'
> & {
  is_admin: unknown
  disabled: unknown
  ai_suggestions_enabled: unknown
  has_password: unknown
}

/**
 * Normalises engine differences (SQLite answers booleans as 0/1). The record is built field by
 * field, not spread: node:sqlite returns rows as dictionary-mode objects, and spreading one (or
 * destructuring the rest of it) takes V8's slow generic path, a measurable share of the per-request
 * authentication lookup (docs/decisions/0013-request-path.md). A literal also gives every record
 * the same hidden class, so the handlers and the serializer that read it stay monomorphic.
 */
export function toUserRecord(row: RawUser): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    user_key: row.user_key,
    is_admin: Boolean(row.is_admin),
    disabled: Boolean(row.disabled),
    language: row.language,
    theme: row.theme,
    ai_suggestions_enabled: Boolean(row.ai_suggestions_enabled),
    email_pending: row.email_pending,
    oidc_provider: row.oidc_provider,
    oidc_sub: row.oidc_sub,
    has_password: Boolean(row.has_password),
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_login_at: row.last_login_at,
  }
}

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

export async function findPasswordHash(ex: Executor, userId: string): Promise<string | null> {
  const row = await ex
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst()
  return row?.password_hash || null
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
