/** SQL for SCIM's view of accounts: the users table joined to what SCIM stores beside it. */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Database, Executor, Timestamp } from '../../db/schema.js'
import {
  comparisonMatches,
  EXTENSION_SCHEMAS,
  matches,
  presentIn,
  splitAttrPath,
  type Compare,
  type Filter,
} from './filter.js'

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
  /** The credential whose externalId this is; null for one every credential sees. */
  external_id_scope: string | null
  given_name: string | null
  family_name: string | null
  formatted_name: string | null
  employee_number: string | null
  department: string | null
  manager_id: string | null
}

export interface ScimFields {
  user_name: string
  external_id: string | null
  external_id_scope: string | null
  given_name: string | null
  family_name: string | null
  formatted_name: string | null
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
      'scim_users.external_id_scope',
      'scim_users.given_name',
      'scim_users.family_name',
      'scim_users.formatted_name',
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
 * How SQL folds and orders text for SCIM's filters, so a filter gives in SQL exactly what filter.ts
 * `matches` gives in memory: case-insensitive attributes compared after JavaScript's toLowerCase
 * (full Unicode lower-casing, final sigma included), and ordering by code point.
 *
 * - SQLite: `unicode_lower`, JavaScript's toLowerCase registered on every connection
 *   (db/sqlite.ts; SQLite's own lower() folds ASCII only); text compares bytewise (code points).
 * - PostgreSQL: lower() under the ICU root collation (`und-x-icu`) — the same Unicode lower-casing
 *   whatever the database's locale; `collate "C"` compares bytewise. A server built without ICU
 *   falls back to lower() under the database's LC_CTYPE (ASCII only for the C locale).
 */
export interface TextFold {
  fold(text: Expression<string>): Expression<string>
  binary(text: Expression<string>): Expression<string>
}

const SQLITE_FOLD: TextFold = {
  fold: (text) => sql<string>`unicode_lower(${text})`,
  binary: (text) => text,
}

function postgresFold(icu: boolean): TextFold {
  return {
    fold: icu
      ? (text) => sql<string>`(lower(${text} collate "und-x-icu") collate "C")`
      : (text) => sql<string>`(lower(${text}) collate "C")`,
    binary: (text) => sql<string>`(${text} collate "C")`,
  }
}

const folds = new WeakMap<object, Promise<TextFold>>()

/** The engine's TextFold (on PostgreSQL, whether ICU is there is asked once per pool). */
export function textFold(db: Executor, engine: 'sqlite' | 'postgres'): Promise<TextFold> {
  if (engine === 'sqlite') return Promise.resolve(SQLITE_FOLD)
  let fold = folds.get(db)
  if (fold === undefined) {
    fold = sql<{ one: number }>`select 1 as one from pg_collation where collname = 'und-x-icu'`
      .execute(db)
      .then((result) => postgresFold(result.rows.length > 0))
    fold.catch(() => folds.delete(db))
    folds.set(db, fold)
  }
  return fold
}

/**
 * A SCIM filter (RFC 7644 §3.4.2.2) as SQL over `users` left-joined to `scim_users`, for every
 * attribute a rendered User has (users.mapping.ts toScimUser) — each term true exactly where
 * filter.ts `matches` holds for the rendered resource, so the differential test
 * (filter-sql.routes.test.ts) can hold the two to each other:
 *
 * - text: `caseExact: false` attributes (userName, name.*, displayName, emails.value,
 *   meta.location, the enterprise ones) lower-cased on both sides (TextFold), LIKE for co/sw/ew
 *   with the pattern's wildcards escaped; the case-exact `id` and `externalId` compared as stored
 *   (substr/replace for sw/ew/co — SQLite's LIKE ignores ASCII case); gt/ge/lt/le by code point;
 * - `active` (a boolean, or "true"/"false" in any case), `meta.created` / `meta.lastModified`
 *   (instants);
 * - what is the same for every account (`emails.type` "work", `emails.primary` true,
 *   `meta.resourceType` "User", any attribute a User never has) is decided here, by `matches`
 *   itself on that value; `schemas` by whether the account has enterprise attributes;
 * - value paths (`emails[type eq "work" and value co "x"]`, `name[givenName sw "a"]`,
 *   `…:enterprise:2.0:User:manager[value eq "x"]`) over the element's attributes;
 * - `and`, `or`, `not`. Every term is two-valued (never SQL NULL: nullable columns are tested for
 *   NULL first), so `not` means what it means in memory.
 *
 * Only a value path over `meta` (`meta[created gt "…"]`, where the in-memory evaluation compares
 * the rendered timestamps as text) gives null: the caller evaluates it in memory.
 */
export type UserWhere = (
  eb: ExpressionBuilder<Database, 'users' | 'scim_users'>,
) => Expression<SqlBool>

type Spec =
  /** Values known without the row: constants, `[]` for an attribute no User has. */
  | { kind: 'values'; values: unknown[] }
  /** Text; `stored` is already lower-cased in the column, `fold` is lower-cased by SQL. */
  | {
      kind: 'text'
      column: Expression<string>
      caseMode: 'exact' | 'stored' | 'fold'
      nullable: boolean
    }
  | { kind: 'active' }
  | { kind: 'instant'; column: 'users.created_at' | 'users.updated_at' }
  | { kind: 'schemas' }
  /** A complex attribute (one element, or none when `present` is false); null: no SQL for it. */
  | { kind: 'complex'; present: UserWhere | null; element: Resolver | null }

type Resolver = (path: string) => Spec

const LIKE_ESCAPE = /[\\%_]/g
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ENTERPRISE = EXTENSION_SCHEMAS[0]!
const ABSENT: Spec = { kind: 'values', values: [] }

const always =
  (value: boolean): UserWhere =>
  () =>
    sql<SqlBool>`${sql.lit(value ? 1 : 0)} = 1`

const notNull =
  (column: Expression<unknown>): UserWhere =>
  () =>
    sql<SqlBool>`${column} is not null`

const text = (
  column: Expression<string>,
  caseMode: 'exact' | 'stored' | 'fold',
  nullable: boolean,
): Spec => ({
  kind: 'text',
  column,
  caseMode,
  nullable,
})
const col = (name: string) => sql.ref<string>(name)

function hasEnterprise(): UserWhere {
  return (eb) =>
    eb.or([
      eb('scim_users.employee_number', 'is not', null),
      eb('scim_users.department', 'is not', null),
      eb('scim_users.manager_id', 'is not', null),
    ])
}

/** One level of a complex attribute: its sub-attribute named `name` (lower-cased), else absent. */
function subAttributes(table: Record<string, Spec>): Resolver {
  return (path) => {
    const { urn, names } = splitAttrPath(path)
    if (urn !== null || names.length !== 1) return ABSENT
    return table[names[0]!.toLowerCase()] ?? ABSENT
  }
}

/**
 * The externalId a credential sees (users.mapping.ts visibleTo): its own, or one set before
 * externalIds were scoped; `scope` null reads the stored value.
 */
function externalIdFor(scope: string | null): Expression<string> {
  if (scope === null) return col('scim_users.external_id')
  return sql<string>`(case when scim_users.external_id_scope is null or scim_users.external_id_scope = ${scope} then scim_users.external_id end)`
}

/** The rendered User's attributes (users.mapping.ts toScimUser), by attribute path. */
function userResolver(baseUrl: string, scope: string | null): Resolver {
  const name = {
    formatted: text(sql<string>`coalesce(scim_users.formatted_name, users.name)`, 'fold', false),
    givenname: text(col('scim_users.given_name'), 'fold', true),
    // Lower-cased when stored (indexed): Okta and Entra look people up by it.
    familyname: text(col('scim_users.family_name_lower'), 'stored', true),
  }
  // The one email an account renders: { value, type: "work", primary: true }.
  const email = {
    value: text(col('users.email'), 'stored', false),
    type: { kind: 'values', values: ['work'] },
    primary: { kind: 'values', values: [true] },
  } satisfies Record<string, Spec>
  const meta = {
    resourcetype: { kind: 'values', values: ['User'] },
    created: { kind: 'instant', column: 'users.created_at' },
    lastmodified: { kind: 'instant', column: 'users.updated_at' },
    location: text(sql<string>`(${`${baseUrl}/Users/`} || users.id)`, 'fold', false),
  } satisfies Record<string, Spec>
  const manager = { value: text(col('scim_users.manager_id'), 'fold', true) }
  const core: Record<string, Spec> = {
    schemas: { kind: 'schemas' },
    id: text(col('users.id'), 'exact', false),
    externalid: text(externalIdFor(scope), 'exact', true),
    // The lower-cased SCIM userName, else the email (stored lower-cased).
    username: text(sql<string>`coalesce(scim_users.user_name_lower, users.email)`, 'stored', false),
    displayname: text(col('users.name'), 'fold', false),
    active: { kind: 'active' },
    name: { kind: 'complex', present: null, element: subAttributes(name) },
    emails: { kind: 'complex', present: null, element: subAttributes(email) },
    // meta[created gt "…"] compares the rendered timestamps as text in memory: left to it.
    meta: { kind: 'complex', present: null, element: null },
  }
  const dotted: Record<string, Spec> = {
    ...Object.fromEntries(Object.entries(name).map(([key, spec]) => [`name.${key}`, spec])),
    ...Object.fromEntries(Object.entries(email).map(([key, spec]) => [`emails.${key}`, spec])),
    ...Object.fromEntries(Object.entries(meta).map(([key, spec]) => [`meta.${key}`, spec])),
  }
  const enterprise: Record<string, Spec> = {
    employeenumber: text(col('scim_users.employee_number'), 'fold', true),
    department: text(col('scim_users.department'), 'fold', true),
    manager: {
      kind: 'complex',
      present: notNull(col('scim_users.manager_id')),
      element: subAttributes(manager),
    },
    'manager.value': manager.value,
  }
  return (path) => {
    const { urn, names } = splitAttrPath(path)
    const key = names.join('.').toLowerCase()
    if (urn === null) return core[key] ?? dotted[key] ?? ABSENT
    if (urn.toLowerCase() === ENTERPRISE.toLowerCase()) return enterprise[key] ?? ABSENT
    return ABSENT
  }
}

/**
 * The filter as SQL, or null when part of it is left to the in-memory evaluation. `scope` is the
 * SCIM credential asking: `externalId` is the one it sees (null: as stored).
 */
export function userFilterToSql(
  filter: Filter,
  baseUrl: string,
  fold: TextFold,
  scope: string | null = null,
): UserWhere | null {
  return translate(filter, userResolver(baseUrl, scope), fold)
}

function translate(filter: Filter, resolve: Resolver, fold: TextFold): UserWhere | null {
  switch (filter.op) {
    case 'and':
    case 'or': {
      const parts = filter.filters.map((part) => translate(part, resolve, fold))
      if (parts.some((part) => part === null)) return null
      return (eb) => {
        const terms = parts.map((part) => part!(eb))
        return filter.op === 'and' ? eb.and(terms) : eb.or(terms)
      }
    }
    case 'not': {
      const inner = translate(filter.filter, resolve, fold)
      return inner === null ? null : (eb) => eb.not(inner(eb))
    }
    case '[]':
      return valuePath(resolve(filter.attrPath), filter.valFilter, fold)
    case 'pr':
      return present(resolve(filter.attrPath))
    default:
      return comparison(resolve(filter.attrPath), filter, fold)
  }
}

/** `attr[filter]`: some value of the attribute that the inner filter matches. */
function valuePath(spec: Spec, inner: Filter, fold: TextFold): UserWhere | null {
  switch (spec.kind) {
    case 'values':
      return always(spec.values.some((value) => matches(inner, value)))
    case 'complex': {
      if (spec.element === null) return null
      const term = translate(inner, spec.element, fold)
      if (term === null) return null
      const { present } = spec
      return present === null ? term : (eb) => eb.and([present(eb), term(eb)])
    }
    default: {
      // A simple value has no sub-attributes: the inner filter sees only absent ones.
      if (!matches(inner, 'a simple value')) return always(false)
      return spec.kind === 'text' && spec.nullable ? notNull(spec.column) : always(true)
    }
  }
}

function present(spec: Spec): UserWhere {
  switch (spec.kind) {
    case 'values':
      return always(presentIn(spec.values))
    case 'text':
      return spec.nullable
        ? (eb) => eb.and([notNull(spec.column)(eb), sql<SqlBool>`${spec.column} <> ''`])
        : () => sql<SqlBool>`${spec.column} <> ''`
    case 'complex':
      return spec.present ?? always(true)
    default:
      return always(true)
  }
}

function comparison(spec: Spec, filter: Compare, fold: TextFold): UserWhere | null {
  const value = filter.compValue
  switch (spec.kind) {
    case 'values':
      return always(comparisonMatches(filter, spec.values))
    case 'complex':
      // An object equals no value: only `ne` holds, present or not.
      return always(comparisonMatches(filter, [{}]))
    case 'active': {
      const wanted = typeof value === 'string' ? value.toLowerCase() === 'true' : value
      if (typeof wanted !== 'boolean' || (filter.op !== 'eq' && filter.op !== 'ne'))
        return always(filter.op === 'ne')
      return (eb) => eb('users.disabled', '=', filter.op === 'eq' ? !wanted : wanted)
    }
    case 'instant': {
      const instant = typeof value === 'string' ? Date.parse(value) : Number.NaN
      const sqlOp = ({ eq: '=', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' } as const)[
        filter.op as 'eq'
      ]
      if (Number.isNaN(instant) || sqlOp === undefined) return always(filter.op === 'ne')
      const iso = new Date(instant).toISOString()
      return (eb) => eb(spec.column, sqlOp, iso)
    }
    case 'schemas': {
      // [core User] plus the enterprise URN when the account has an enterprise attribute.
      const op = filter.op === 'ne' ? 'eq' : filter.op
      const core = comparisonMatches({ ...filter, op }, [USER_SCHEMA])
      const extension = comparisonMatches({ ...filter, op }, [ENTERPRISE])
      const any: UserWhere = core ? always(true) : extension ? hasEnterprise() : always(false)
      return filter.op === 'ne' ? (eb) => eb.not(any(eb)) : any
    }
    case 'text':
      return textComparison(spec, filter, fold)
  }
}

function textComparison(
  spec: Extract<Spec, { kind: 'text' }>,
  filter: Compare,
  fold: TextFold,
): UserWhere {
  const value = filter.compValue
  // A string equals no number, boolean or null: only `ne` holds.
  if (typeof value !== 'string') return always(filter.op === 'ne')
  const exact = spec.caseMode === 'exact'
  const wanted = exact ? value : value.toLowerCase()
  const column = spec.caseMode === 'fold' ? fold.fold(spec.column) : fold.binary(spec.column)
  const test = (term: Expression<SqlBool>): UserWhere =>
    spec.nullable ? (eb) => eb.and([notNull(spec.column)(eb), term]) : () => term
  const length = sql.lit(Array.from(wanted).length)
  const like = (pattern: string) =>
    test(sql<SqlBool>`${column} like ${pattern} escape ${sql.lit('\\')}`)
  const escaped = wanted.replace(LIKE_ESCAPE, (c) => `\\${c}`)
  switch (filter.op) {
    case 'eq':
      return test(sql<SqlBool>`${column} = ${wanted}`)
    case 'ne': {
      const equal = test(sql<SqlBool>`${column} = ${wanted}`)
      return (eb) => eb.not(equal(eb))
    }
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le': {
      const op = sql.raw({ gt: '>', ge: '>=', lt: '<', le: '<=' }[filter.op])
      return test(sql<SqlBool>`${column} ${op} ${wanted}`)
    }
    case 'co':
      if (!exact) return like(`%${escaped}%`)
      // SQLite's LIKE ignores ASCII case: a case-exact substring is one replace() removes.
      return wanted === ''
        ? test(sql<SqlBool>`1 = 1`)
        : test(sql<SqlBool>`replace(${column}, ${wanted}, '') <> ${column}`)
    case 'sw':
      return exact
        ? test(sql<SqlBool>`substr(${column}, 1, ${length}) = ${wanted}`)
        : like(`${escaped}%`)
    case 'ew':
      return exact
        ? test(
            sql<SqlBool>`length(${column}) >= ${length} and substr(${column}, length(${column}) - ${length} + 1) = ${wanted}`,
          )
        : like(`%${escaped}`)
  }
}

/** How many accounts match (all when `where` is null). */
export async function countScimUsers(ex: Executor, where: UserWhere | null): Promise<number> {
  let query = ex.selectFrom('users').leftJoin('scim_users', 'scim_users.user_id', 'users.id')
  if (where !== null) query = query.where(where)
  const row = await query
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** One page of the matching accounts in the stable order (creation, then id). */
export async function pageScimUsers(
  ex: Executor,
  where: UserWhere | null,
  offset: number,
  limit: number,
): Promise<ScimUserRow[]> {
  let query = base(ex)
  if (where !== null) query = query.where(where)
  return (
    await query
      .orderBy('users.created_at')
      .orderBy('users.id')
      .limit(limit)
      .offset(offset)
      .execute()
  ).map(toRow)
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
    query = query.where((eb) =>
      eb(eb.refTuple('users.created_at', 'users.id'), '>', eb.tuple(after.created_at, after.id)),
    )
  }
  return (await query.orderBy('users.created_at').orderBy('users.id').limit(batch).execute()).map(
    toRow,
  )
}

/**
 * The account a userName names, ignoring case: SCIM's userName where SCIM set one, else the
 * email. Two lookups, each through its own unique index (an OR across the joined tables would
 * read every account on PostgreSQL).
 */
export async function findScimUserByUserName(
  ex: Executor,
  userName: string,
): Promise<ScimUserRow | null> {
  const lower = userName.toLowerCase()
  const byScim = await base(ex).where('scim_users.user_name_lower', '=', lower).executeTakeFirst()
  if (byScim !== undefined) return toRow(byScim)
  const byEmail = await base(ex)
    .where('users.email', '=', lower)
    .where('scim_users.user_id', 'is', null)
    .executeTakeFirst()
  return byEmail === undefined ? null : toRow(byEmail)
}

/**
 * The account whose externalId, as `scope` sees it, is `externalId`: set by that credential, or
 * before externalIds were scoped (its own first). Through the (external_id, scope) index.
 */
export async function findScimUserByExternalId(
  ex: Executor,
  externalId: string,
  scope: string,
): Promise<ScimUserRow | null> {
  const row = await base(ex)
    .where('scim_users.external_id', '=', externalId)
    .where((eb) =>
      eb.or([
        eb('scim_users.external_id_scope', '=', scope),
        eb('scim_users.external_id_scope', 'is', null),
      ]),
    )
    .orderBy(sql`scim_users.external_id_scope is null`)
    .executeTakeFirst()
  return row === undefined ? null : toRow(row)
}

/** Who holds a userName and an externalId: the accounts a write must not collide with. */
export interface UniquenessHolders {
  /** As findScimUserByUserName finds it. */
  userName: string | null
  /** As findScimUserByExternalId finds it; null when no externalId was asked about. */
  externalId: string | null
}

const HOLDS = { scimUserName: 1, email: 2, scopedExternalId: 3, unscopedExternalId: 4 } as const

/**
 * The ids findScimUserByUserName and findScimUserByExternalId would find, in one statement (a
 * write's uniqueness check runs on every SCIM create and replace): each branch reads through the
 * same unique index as its lookup, and the order of preference is decided here.
 */
export async function findUniquenessHolders(
  ex: Executor,
  userName: string,
  external: { id: string; scope: string } | null,
): Promise<UniquenessHolders> {
  const lower = userName.toLowerCase()
  const holds = (kind: number) => sql.lit(kind).as('holds')
  let query = ex
    .selectFrom('scim_users')
    .select(['scim_users.user_id as id', holds(HOLDS.scimUserName)])
    .where('scim_users.user_name_lower', '=', lower)
    .unionAll(
      ex
        .selectFrom('users')
        .leftJoin('scim_users', 'scim_users.user_id', 'users.id')
        .select(['users.id as id', holds(HOLDS.email)])
        .where('users.email', '=', lower)
        .where('scim_users.user_id', 'is', null),
    )
  if (external !== null) {
    const byExternal = (kind: number) =>
      ex
        .selectFrom('scim_users')
        .select(['scim_users.user_id as id', holds(kind)])
        .where('scim_users.external_id', '=', external.id)
    query = query
      .unionAll(byExternal(HOLDS.scopedExternalId).where('external_id_scope', '=', external.scope))
      .unionAll(byExternal(HOLDS.unscopedExternalId).where('external_id_scope', 'is', null))
  }
  const rows = await query.execute()
  const first = (...kinds: number[]) =>
    kinds.map((kind) => rows.find((row) => Number(row.holds) === kind)).find(Boolean)?.id ?? null
  return {
    userName: first(HOLDS.scimUserName, HOLDS.email),
    externalId: first(HOLDS.scopedExternalId, HOLDS.unscopedExternalId),
  }
}

export async function userIdByEmail(ex: Executor, email: string): Promise<string | null> {
  return (
    (await ex.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst())?.id ??
    null
  )
}

export async function upsertScimFields(
  ex: Executor,
  userId: string,
  fields: ScimFields,
): Promise<void> {
  const values = {
    ...fields,
    user_name_lower: fields.user_name.toLowerCase(),
    family_name_lower: fields.family_name?.toLowerCase() ?? null,
  }
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
