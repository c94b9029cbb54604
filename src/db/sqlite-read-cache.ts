/**
 * The SQLite read cache (on unless SQLITE_READ_CACHE=off): the rows of the per-request hot reads,
 * kept until the database changes. Other connections' commits are noticed through the WAL-index
 * (db/drivers/sqlite-commit-watch.ts).
 */
import type { CommitWatch } from './drivers/sqlite-commit-watch.js'

/** Entries kept per hot-path statement (one per credential in use); past this the oldest goes. */
export const READ_CACHE_ENTRIES = 1_000

type KeyValue = string | number | null

/** A query's `map` (db/precompiled.ts): what a row becomes, as kept by the cache and handed out. */
export type Mapper = (row: unknown) => unknown

/** What a statement is run with (node:sqlite's bindable values). */
export type Parameters = Array<string | number | bigint | null | Uint8Array>

/**
 * The rows of hot-path reads (readNow: the per-request credential and MFA-status lookups), kept
 * until the database changes. A change is either a statement other than a SELECT run on this
 * connection (counted here) or a commit by any other connection to the same file (CommitWatch).
 * Both are checked before every cached read, so a revoked session or token, or a disabled user, is
 * refused at the very next request on every instance, as without the cache. Any change at all
 * empties the cache: no reasoning about which rows a write could touch. The cached queries take no
 * clock value (their callers compare expiry times), so the same credential finds the same entry.
 * What is kept is what the query's `map` made of each row (db/precompiled.ts), so the mapping runs
 * once per row read, not once per request.
 */
export class ReadCache {
  readonly #commits: CommitWatch
  #writesSeen = -1
  // Per SQL text: entries keyed by the single text parameter the hot reads take, and by the JSON of
  // any other list of plain values — two maps, so no key of one form can stand for the other.
  readonly #bySingle = new Map<string, Map<string, readonly unknown[]>>()
  readonly #byList = new Map<string, Map<string, readonly unknown[]>>()

  constructor(commits: CommitWatch) {
    this.#commits = commits
  }

  /** `writes`: how many statements other than a SELECT this connection has run so far. */
  read(
    sql: string,
    parameters: Parameters,
    writes: number,
    run: () => unknown[],
    map: Mapper | undefined,
  ): readonly unknown[] {
    const single = parameters.length === 1 && typeof parameters[0] === 'string'
    if (!single && !parameters.every(isKeyValue)) return mapAll(run(), map)
    // Both checks always run: the watch must also take in this connection's own commits.
    const committed = this.#commits.committedSinceLastLook()
    if (committed || writes !== this.#writesSeen) {
      this.#bySingle.clear()
      this.#byList.clear()
      this.#writesSeen = writes
    }
    const key = single ? (parameters[0] as string) : JSON.stringify(parameters)
    const bySql = this.#entries(single ? this.#bySingle : this.#byList, sql)
    const hit = bySql.get(key)
    if (hit !== undefined) return hit
    // Shared by every later request for the same key: frozen, so no caller can change another's
    // view.
    const rows = Object.freeze(mapAll(run(), map).map(freezeTree))
    if (bySql.size >= READ_CACHE_ENTRIES) bySql.delete(bySql.keys().next().value as string)
    bySql.set(key, rows)
    return rows
  }

  #entries(
    all: Map<string, Map<string, readonly unknown[]>>,
    sql: string,
  ): Map<string, readonly unknown[]> {
    let bySql = all.get(sql)
    if (bySql === undefined) {
      bySql = new Map()
      all.set(sql, bySql)
    }
    return bySql
  }
}

const isKeyValue = (value: unknown): value is KeyValue =>
  value === null || typeof value === 'string' || typeof value === 'number'

export const mapAll = (rows: unknown[], map: Mapper | undefined): unknown[] =>
  map === undefined ? rows : rows.map(map)

/** Freezes a kept value and the plain objects it holds (a mapped row holds a user record, say). */
function freezeTree<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const inner of Object.values(value)) freezeTree(inner)
  return value
}
