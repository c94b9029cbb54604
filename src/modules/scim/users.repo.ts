/** SQL for SCIM's view of accounts: the users table joined to what SCIM stores beside it. */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Filter } from 'scim2-parse-filter'
import type { Database, Executor, Timestamp } from '../../db/schema.js'

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

/**
 * A SCIM filter as SQL over `users` left-joined to `scim_users` (RFC 7644 §3.4.2.2), for the
 * attributes whose rendering is a column and whose comparison SQL makes exactly as filter.ts
 * does in memory — so moving a filter into SQL never changes which users match:
 *
 * - `userName` (the lower-cased SCIM userName, else the email, which is stored lower-cased) and
 *   `emails.value` (the email): eq, ne, co, sw, ew, pr, the value lower-cased in JavaScript as
 *   the columns were; co/sw/ew through LIKE with the pattern's wildcards escaped;
 * - `externalId` (case-exact): eq, ne, pr; `id`: eq, ne, pr;
 * - `active`: eq, ne with a boolean or "true"/"false" (any case), pr;
 * - `meta.created`, `meta.lastModified`: eq, ne, gt, ge, lt, le against an instant, pr;
 * - `and`, `or` and `not` over those. Every translated term is two-valued (never SQL NULL), so
 *   `not` means what it means in memory.
 *
 * Anything else (name parts and displayName — SQLite's lower() folds ASCII only, JavaScript folds
 * Unicode; ordering comparisons on strings, whose collation differs by engine; value paths such as
 * `emails[type eq "work"]`) gives null: the caller evaluates it in memory.
 */
export type UserWhere = (eb: ExpressionBuilder<Database, 'users' | 'scim_users'>) => Expression<SqlBool>

const CORE_USER = /^urn:ietf:params:scim:schemas:core:2\.0:user:/i
const LIKE_ESCAPE = /[\\%_]/g

export function userFilterToSql(filter: Filter): UserWhere | null {
  switch (filter.op) {
    case 'and':
    case 'or': {
      const parts = filter.filters.map(userFilterToSql)
      if (parts.some((part) => part === null)) return null
      return (eb) => {
        const terms = parts.map((part) => part!(eb))
        return filter.op === 'and' ? eb.and(terms) : eb.or(terms)
      }
    }
    case 'not': {
      const inner = userFilterToSql(filter.filter)
      return inner === null ? null : (eb) => eb.not(inner(eb))
    }
    case '[]':
      return null
    default:
      return attributeTerm(filter.attrPath.replace(CORE_USER, '').toLowerCase(), filter.op, filter.op === 'pr' ? undefined : filter.compValue)
  }
}

const always =
  (value: boolean): UserWhere =>
  () =>
    sql<SqlBool>`${sql.lit(value ? 1 : 0)} = 1`

function attributeTerm(attr: string, op: string, value: unknown): UserWhere | null {
  if (attr === 'username' || attr === 'emails.value') {
    // userName is never absent; an email neither (every account has one).
    if (op === 'pr') return always(true)
    if (typeof value !== 'string') return null
    const column = attr === 'username' ? sql<string>`coalesce(scim_users.user_name_lower, users.email)` : sql<string>`users.email`
    return textTerm(column, op, value.toLowerCase())
  }
  if (attr === 'externalid') {
    if (op === 'pr') return (eb) => eb.and([eb('scim_users.external_id', 'is not', null), eb('scim_users.external_id', '!=', '')])
    if (typeof value !== 'string') return null
    if (op === 'eq') return (eb) => eb.and([eb('scim_users.external_id', 'is not', null), eb('scim_users.external_id', '=', value)])
    if (op === 'ne') return (eb) => eb.or([eb('scim_users.external_id', 'is', null), eb('scim_users.external_id', '!=', value)])
    return null
  }
  if (attr === 'id') {
    if (op === 'pr') return always(true)
    if (typeof value !== 'string') return null
    if (op === 'eq') return (eb) => eb('users.id', '=', value)
    if (op === 'ne') return (eb) => eb('users.id', '!=', value)
    return null
  }
  if (attr === 'active') {
    if (op === 'pr') return always(true)
    const wanted = typeof value === 'string' ? value.toLowerCase() === 'true' : value
    if (typeof wanted !== 'boolean' || (op !== 'eq' && op !== 'ne')) return null
    const active = op === 'eq' ? wanted : !wanted
    return (eb) => eb('users.disabled', '=', !active)
  }
  if (attr === 'meta.created' || attr === 'meta.lastmodified') {
    if (op === 'pr') return always(true)
    const instant = typeof value === 'string' ? Date.parse(value) : Number.NaN
    if (Number.isNaN(instant)) return null
    const column = attr === 'meta.created' ? 'users.created_at' : 'users.updated_at'
    const iso = new Date(instant).toISOString()
    const sqlOp = ({ eq: '=', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' } as const)[op as 'eq']
    if (sqlOp === undefined) return null
    return (eb) => eb(column, sqlOp, iso)
  }
  return null
}

/** A comparison of a never-null, lower-cased text column with a lower-cased value. */
function textTerm(column: Expression<string>, op: string, value: string): UserWhere | null {
  const escaped = value.replace(LIKE_ESCAPE, (c) => `\\${c}`)
  const like =
    (pattern: string): UserWhere =>
    () =>
      sql<SqlBool>`${column} like ${pattern} escape ${sql.lit('\\')}`
  switch (op) {
    case 'eq':
      return () => sql<SqlBool>`${column} = ${value}`
    case 'ne':
      return () => sql<SqlBool>`${column} <> ${value}`
    case 'co':
      return like(`%${escaped}%`)
    case 'sw':
      return like(`${escaped}%`)
    case 'ew':
      return like(`%${escaped}`)
    default:
      return null
  }
}

/** How many accounts match (all when `where` is null). */
export async function countScimUsers(ex: Executor, where: UserWhere | null): Promise<number> {
  let query = ex.selectFrom('users').leftJoin('scim_users', 'scim_users.user_id', 'users.id')
  if (where !== null) query = query.where(where)
  const row = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** One page of the matching accounts in the stable order (creation, then id). */
export async function pageScimUsers(ex: Executor, where: UserWhere | null, offset: number, limit: number): Promise<ScimUserRow[]> {
  let query = base(ex)
  if (where !== null) query = query.where(where)
  return (await query.orderBy('users.created_at').orderBy('users.id').limit(limit).offset(offset).execute()).map(toRow)
}

/**
 * The next `batch` accounts after `after` in the stable order (keyset: never skips or repeats
 * an account while others are added), narrowed by `where` when given. For filters evaluated in
 * memory: the caller walks the accounts a batch at a time, so memory stays bounded.
 */
export async function scanScimUsers(
  ex: Executor,
  where: UserWhere | null,
  after: { created_at: Timestamp; id: string } | null,
  batch: number,
): Promise<ScimUserRow[]> {
  let query = base(ex)
  if (where !== null) query = query.where(where)
  if (after !== null) {
    // A row-value comparison, so both engines walk the (created_at, id) index from the last key.
    query = query.where((eb) => eb(eb.refTuple('users.created_at', 'users.id'), '>', eb.tuple(after.created_at, after.id)))
  }
  return (await query.orderBy('users.created_at').orderBy('users.id').limit(batch).execute()).map(toRow)
}

/**
 * The account a userName names, ignoring case: SCIM's userName where SCIM set one, else the
 * email. Two lookups, each through its own unique index (an OR across the joined tables would
 * read every account on PostgreSQL).
 */
export async function findScimUserByUserName(ex: Executor, userName: string): Promise<ScimUserRow | null> {
  const lower = userName.toLowerCase()
  const byScim = await base(ex).where('scim_users.user_name_lower', '=', lower).executeTakeFirst()
  if (byScim !== undefined) return toRow(byScim)
  const byEmail = await base(ex).where('users.email', '=', lower).where('scim_users.user_id', 'is', null).executeTakeFirst()
  return byEmail === undefined ? null : toRow(byEmail)
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
