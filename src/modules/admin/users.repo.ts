/** SQL for the administrators' view of users: the user columns plus whether MFA is on. */
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { isPostgres } from '../../db/engine.js'
import { assertIssuedCursor, newestFirst, type PageWindow } from '../../db/keyset.js'
import { anyContains, ftsPhrase, loweredContains } from '../../db/text-search.js'
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
 * True where the user's email or name contains `q`, ignoring case. From 3 characters on, on
 * PostgreSQL, the pg_trgm index over the lower-cased copies' text answers the first LIKE, and the
 * LIKE on each copy decides (a term spanning the space matches the text only; migration
 * 0118_user_search_stored_lower); SQLite reads such a search from its search rows instead
 * (searchPageIds). A shorter term reads every user.
 */
function matchesSearch(ex: Executor, q: string) {
  if ([...q].length < TRIGRAM || !isPostgres(ex))
    return anyContains(['users.email', 'users.name'], q)
  const [email, name] = [sql.ref('users.email_lower'), sql.ref('users.name_lower')]
  const text = loweredContains(sql`(${email} || ' ' || ${name})`, q)
  return sql<boolean>`(${text} and (${loweredContains(email, q)} or ${loweredContains(name, q)}))`
}

/** SQLite answers a search of 3 characters or more from its trigram index and search rows. */
function searchTablePages(ex: Executor, q: string): boolean {
  return !isPostgres(ex) && [...q].length >= TRIGRAM
}

/**
 * SQLite: the ids of a search page, decided in the search rows alone. The FTS5 trigram phrase finds
 * the matches — a substring of the email or of the name, ignoring case with Unicode's case folding
 * as PostgreSQL's lower() (SQLite's LIKE folds only ASCII) — and each match's row of
 * `user_search_rows`, read by its integer key, holds the user's id and creation time, so a search
 * reads one small row per match and only the page's users (migration 0117_user_search_rows_order).
 */
function searchPageIds(q: string, window: PageWindow) {
  const phrase = ftsPhrase(q)
  const conditions = [
    sql<boolean>`user_search_rows.id in (select users_fts.rowid from users_fts where users_fts match ${phrase})`,
  ]
  if (window.after !== null)
    conditions.push(
      sql<boolean>`(user_search_rows.created_at, user_search_rows.user_id) < (${window.after[0]}, ${window.after[1]})`,
    )
  return sql<{
    user_id: string
  }>`(select user_search_rows.user_id from user_search_rows where ${sql.join(conditions, sql` and `)} order by user_search_rows.created_at desc, user_search_rows.user_id desc limit ${window.limit + 1})`
}

/** Users newest first; with `q`, those whose email or name contains it, ignoring case. */
export async function listAdminUsers(
  ex: Executor,
  q: string | null,
  window: PageWindow,
): Promise<AdminUserRecord[]> {
  assertIssuedCursor(window)
  if (q !== null && searchTablePages(ex, q)) {
    // Joined to the page's ids, which reads faster than `users.id in (…)` of them
    // (docs/decisions/0071-user-search-page-from-the-search-rows.md).
    const page = ex
      .selectFrom(searchPageIds(q, window).as('page'))
      .innerJoin('users', 'users.id', 'page.user_id')
      .select(ADMIN_USER_COLUMNS)
    return (await newestFirst(page, window, 'users').execute()).map(toAdminUserRecord)
  }
  let query = ex.selectFrom('users').select(ADMIN_USER_COLUMNS)
  if (q !== null) query = query.where(matchesSearch(ex, q))
  return (await newestFirst(query, window, 'users').execute()).map(toAdminUserRecord)
}
