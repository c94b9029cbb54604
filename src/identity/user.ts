/**
 * The account as every request sees it: the user record that the authentication query reads with
 * the credential (USER_COLUMNS, usable in any query that has `users` in scope), and the one read of
 * the password hash, for verifying a password (never for a response).
 */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../db/schema.js'

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

export async function findPasswordHash(ex: Executor, userId: string): Promise<string | null> {
  const row = await ex
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst()
  return row?.password_hash || null
}
