/** SQL for the administrators' view of users: the user columns plus whether MFA is on. */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { isPostgres } from '../../db/engine.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { anyContains, containing } from '../../db/text-search.js'
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

/** The shortest search the trigram indexes answer (migration 0090_user_search). */
const TRIGRAM = 3

/**
 * True where the user's email or name contains `q`, ignoring case. From 3 characters on, the
 * candidates come from trigrams: on PostgreSQL the pg_trgm index over both columns' text answers
 * the first LIKE (migration 0106_user_search_one_index), on SQLite the FTS5 table narrows the users
 * to its matches (it folds case more widely than SQLite's lower()); either way the LIKE on each
 * column decides. A shorter term reads every user.
 */
function matchesSearch(ex: Executor, q: string) {
  const contains = anyContains(['users.email', 'users.name'], q)
  if ([...q].length < TRIGRAM) return contains
  if (isPostgres(ex)) {
    const both = sql`lower(${sql.ref('users.email')} || ' ' || ${sql.ref('users.name')})`
    return sql<boolean>`(${both} like lower(${containing(q)}) escape '\\' and ${contains})`
  }
  const phrase = `"${q.replaceAll('"', '""')}"`
  const candidates = sql`select user_search_rows.user_id from user_search_rows where user_search_rows.id in (select users_fts.rowid from users_fts where users_fts match ${phrase})`
  return sql<boolean>`(${sql.ref('users.id')} in (${candidates}) and ${contains})`
}

/** Users newest first; with `q`, those whose email or name contains it, ignoring case. */
export async function listAdminUsers(
  ex: Executor,
  q: string | null,
  window: PageWindow,
): Promise<AdminUserRecord[]> {
  let query = ex.selectFrom('users').select(ADMIN_USER_COLUMNS)
  if (q !== null) query = query.where(matchesSearch(ex, q))
  return (await newestFirst(query, window, 'users').execute()).map(toAdminUserRecord)
}
