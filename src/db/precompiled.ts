/**
 * Queries built and compiled once, then run many times with new parameter values. Kysely builds
 * and compiles a query on every call; for the per-request authentication lookup that costs more
 * than running it (docs/decisions/0008-precompiled-hot-statements.md).
 *
 * The query is built with sentinel values in place of the named parameters; after compiling, the
 * positions of the sentinels in the parameter list are remembered and filled on each call.
 *
 * On SQLite, a read through the database itself (not a transaction) runs synchronously when no
 * transaction holds the connection, skipping Kysely's connection queue: under concurrent load the
 * queue's promise hops cost several times the query. Such a read is answered from the driver's read
 * cache while the database is unchanged (db/sqlite.ts ReadCache); a query given a `map` has each
 * row mapped once as it enters the cache (dates parsed, records built), not on every request.
 *
 * On PostgreSQL, a read through the database itself runs as a named prepared statement straight on
 * the pg pool (db/postgres.ts PreparedReader): parsed and planned once per connection, then only
 * Bind/Execute travel, and Kysely's driver path (connection acquisition, result transformation) is
 * skipped. Inside a transaction the query goes through Kysely as before, on the transaction's
 * connection.
 */
import { createHash } from 'node:crypto'
import type { Compilable, CompiledQuery } from 'kysely'
import { isPostgres } from './engine.js'
import type { Executor } from './schema.js'
import type { ImmediateReader } from './sqlite.js'
import type { PoolReader, PreparedReader } from './postgres.js'

const immediateReaders = new WeakMap<Executor, ImmediateReader>()
const preparedReaders = new WeakMap<Executor, PreparedReader>()
const poolReaders = new WeakMap<Executor, PoolReader>()

export function registerImmediateReader(db: Executor, reader: ImmediateReader): void {
  immediateReaders.set(db, reader)
}

export function registerPreparedReader(db: Executor, reader: PreparedReader): void {
  preparedReaders.set(db, reader)
}

/** PostgreSQL: where `compiledOnce` reads run, as named statements on Kysely's own pool. */
export function registerPoolReader(db: Executor, reader: PoolReader): void {
  poolReaders.set(db, reader)
}

/** A statement name that only this SQL text gets: one text under one name on every connection. */
function statementName(text: string): string {
  return `sb_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`
}

type Value = string | number | null

interface Prepared<Row> {
  compiled: CompiledQuery<Row>
  slots: Array<string | null>
  name: string
}

/**
 * PostgreSQL: one placeholder per named parameter. Kysely compiles a `$n` for every use of a value,
 * so a builder that uses one several times (the go redirect's statement: the user and the slug
 * three times each) sends each again, and the server takes every copy through its type's input
 * function on each Bind. Here every use of a named parameter refers to its first `$n`. Left as
 * compiled when the text's placeholders are not exactly $1…$n in the parameters' order of
 * appearance (nothing else in the SQL looks like one).
 */
export function sharePlaceholders<Row>(
  compiled: CompiledQuery<Row>,
  slots: Array<string | null>,
): { compiled: CompiledQuery<Row>; slots: Array<string | null> } {
  const uses = [...compiled.sql.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]))
  if (uses.length !== compiled.parameters.length || uses.some((n, i) => n !== i + 1))
    return { compiled, slots }
  const kept: Array<string | null> = []
  const parameters: unknown[] = []
  const renumbered = compiled.parameters.map((value, i) => {
    const slot = slots[i] ?? null
    const first = slot === null ? -1 : kept.indexOf(slot)
    if (first !== -1) return first + 1
    kept.push(slot)
    parameters.push(value)
    return parameters.length
  })
  let use = 0
  const sql = compiled.sql.replace(/\$\d+/g, () => `$${renumbered[use++]}`)
  return { compiled: { ...compiled, sql, parameters }, slots: kept }
}

/**
 * The query built with sentinel values in place of the named parameters and compiled; `slots`
 * names the parameter each position takes (null: a value of the query's own).
 */
function compileWithSlots<Name extends string, Row>(
  ex: Executor,
  names: readonly Name[],
  build: (ex: Executor, params: Record<Name, string>) => Compilable<Row>,
): { compiled: CompiledQuery<Row>; slots: Array<string | null> } {
  const sentinels = Object.fromEntries(
    names.map((name) => [name, `\u0000param:${name}\u0000`]),
  ) as Record<Name, string>
  const built = build(ex, sentinels).compile()
  const found = built.parameters.map(
    (value) => names.find((name) => sentinels[name] === value) ?? null,
  )
  for (const name of names) {
    if (!found.includes(name))
      throw new Error(`precompiled query does not use its parameter "${name}"`)
  }
  return isPostgres(ex) ? sharePlaceholders(built, found) : { compiled: built, slots: found }
}

function withValues<Row>(
  compiled: CompiledQuery<Row>,
  slots: Array<string | null>,
  values: Record<string, unknown>,
): unknown[] {
  return compiled.parameters.map((value, i) => {
    const slot = slots[i]
    return slot === null || slot === undefined ? value : values[slot]
  })
}

/**
 * A read built and compiled once per engine, then run with each call's values, not through the
 * hot path's read cache (SQLite; its rows are not kept). On SQLite it runs at once when no
 * transaction holds the connection, as a precompiled read does. On PostgreSQL, outside a
 * transaction, it runs as a named prepared statement on a connection of Kysely's pool, whose
 * settings leave the choice of plan to PostgreSQL: planned for its values on the first executions
 * and then, where the plan for any values costs no more, planned no more — planning the Links
 * page's statements cost four times running them
 * (docs/decisions/0069-links-page-statements-prepared-on-postgresql.md). For reads of every page
 * whose building and compiling cost as much as running them (the Links list's page and per-link
 * reads).
 */
export function compiledOnce<Name extends string, Row>(
  names: readonly Name[],
  build: (ex: Executor, params: Record<Name, string>) => Compilable<Row>,
): (ex: Executor, values: Record<Name, unknown>) => Promise<Row[]> {
  const byEngine = new Map<boolean, Prepared<Row>>()
  return async (ex, values) => {
    const engine = isPostgres(ex)
    let prepared = byEngine.get(engine)
    if (prepared === undefined) {
      const { compiled, slots } = compileWithSlots(ex, names, build)
      prepared = { compiled, slots, name: statementName(compiled.sql) }
      byEngine.set(engine, prepared)
    }
    const { compiled, slots } = prepared
    const parameters = withValues(compiled, slots, values)
    const immediate = immediateReaders.get(ex)?.(
      compiled.sql,
      parameters as Value[],
      undefined,
      false,
    )
    if (immediate !== undefined) return immediate as Row[]
    const reader = poolReaders.get(ex)
    if (reader !== undefined) return reader<Row>(prepared.name, compiled.sql, parameters)
    return (await ex.executeQuery<Row>({ ...compiled, parameters })).rows
  }
}

/**
 * `map` turns a row into what callers use. On SQLite its result may be kept and shared by later
 * calls (frozen, with the objects it holds): it must depend on the row alone.
 */
export function precompiled<Name extends string, Row, Out = Row>(
  names: readonly Name[],
  build: (ex: Executor, params: Record<Name, string>) => Compilable<Row>,
  map?: (row: Row) => Out,
): (ex: Executor, values: Record<Name, Value>) => Promise<Out[]> {
  const byExecutor = new WeakMap<Executor, Prepared<Row>>()

  const prepare = (ex: Executor): Prepared<Row> => {
    const { compiled, slots } = compileWithSlots(ex, names, build)
    return { compiled, slots, name: statementName(compiled.sql) }
  }

  return async (ex, values) => {
    let prepared = byExecutor.get(ex)
    if (prepared === undefined) {
      prepared = prepare(ex)
      byExecutor.set(ex, prepared)
    }
    const { compiled, slots } = prepared
    const parameters = withValues(compiled, slots, values)
    const immediate = immediateReaders.get(ex)?.(
      compiled.sql,
      parameters as Value[],
      map as ((row: unknown) => unknown) | undefined,
    )
    if (immediate !== undefined) return immediate as Out[]
    const reader = preparedReaders.get(ex)
    const rows =
      reader !== undefined
        ? await reader<Row>(prepared.name, compiled.sql, parameters as Value[])
        : (await ex.executeQuery<Row>({ ...compiled, parameters })).rows
    return map === undefined ? (rows as unknown as Out[]) : rows.map(map)
  }
}
