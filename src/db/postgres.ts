/**
 * PostgreSQL through a pg pool. Type parsers are set on the pool (not globally) so rows look the
 * same as on SQLite: timestamptz → ISO-8601 UTC string, int8 (counts) → number.
 */
import { createRequire } from 'node:module'
import type pg from 'pg'
import type * as PgModule from 'pg'
import { PostgresDialect, type Driver } from 'kysely'
import { FlushAfterCommitDriver, type AuditCommit } from './flush-after-commit.js'

// The driver is loaded only when DATABASE_URL names PostgreSQL
// (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)

const TIMESTAMPTZ_OID = 1184
const INT8_OID = 20
// A connection unused this long is closed (the pool's and the pipelined readers' alike).
export const IDLE_MS = 30_000

// PostgreSQL's text form in UTC: "2026-11-21 10:00:00.123456+00", the fraction optional.
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/

/**
 * timestamptz as ISO-8601 UTC with milliseconds, as Date#toISOString writes it. Every
 * authentication query reads several, so the common case — a session in UTC, as the
 * bench's and the documented set-ups are — is rearranged as text; any other zone goes through Date.
 */
export function timestamptzToIso(text: string): string {
  const utc = UTC_TEXT.exec(text)
  if (utc !== null) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`
  // "2026-11-21 12:00:00+02" (or "+05:30"): ISO-8601 before Date parses it.
  const iso = text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
  return new Date(iso).toISOString()
}

/**
 * The settings of the connections that run the hot reads (db/precompiled.ts): named prepared
 * statements, each a lookup by key. Set only on the pipelined connections, which run nothing else:
 * the settings apply to unnamed statements too (auto_explain shows `$1` in their plans), so on the
 * pool they would take Kysely's statements off the plans made for their values. A pool too small
 * to share (splitConnections) runs the hot reads with PostgreSQL's own choices.
 *
 * Generic plans: a key lookup's best plan does not depend on the values. Left to choose
 * (plan_cache_mode = auto), PostgreSQL plans the first five executions for their values and keeps
 * doing so whenever the generic plan's estimate looks worse than theirs, which the data's
 * distribution decides: on a database where thousands of people have a go/wiki, the go redirect's
 * statement was planned anew on every execution, about ten times the work of running its generic
 * plan (docs/decisions/0011-planner-settings-on-hot-connections.md).
 *
 * No sequential or bitmap scans where an index answers: the generic plan is made once, on the
 * statistics of the moment, and on a new instance's small tables PostgreSQL prefers reading the one
 * page of links or memberships to an index probe. Every such scan asks the file system for the
 * table's length on every execution (an `lseek`; an index probe reads only shared buffers), and a
 * system call is the dearest part of a read this small. With these two off the planner still scans
 * a table that has no usable index, so no read stops working.
 */
export const HOT_READ_SETTINGS = {
  text: 'select set_config($1, $2, false), set_config($3, $4, false), set_config($5, $6, false)',
  values: [
    'plan_cache_mode',
    'force_generic_plan',
    'enable_seqscan',
    'off',
    'enable_bitmapscan',
    'off',
  ],
}

/** pg's client settings shared by the pool and the pipelined readers: same rows on every path. */
export function clientSettings(url: string, pg: typeof PgModule.default) {
  return {
    connectionString: url,
    // Fail fast instead of queueing forever when the server is gone (see /api/health/ready).
    connectionTimeoutMillis: 5000,
    // A query on a connection whose server vanished without closing it must not hang forever.
    query_timeout: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === TIMESTAMPTZ_OID) return timestamptzToIso
        if (oid === INT8_OID) return (text: string) => Number(text)
        return pg.types.getTypeParser(oid, format) as (text: string) => unknown
      }) as typeof pg.types.getTypeParser,
    },
  }
}

export function createPostgresPool(
  url: string,
  max: number,
  onIdleError: (error: Error) => void,
): pg.Pool {
  const pg = require('pg') as typeof PgModule.default
  const pool = new pg.Pool({ ...clientSettings(url, pg), max, idleTimeoutMillis: IDLE_MS })
  // A connection dropped by the server (restart, failover, network) emits 'error' — on the pool
  // while idle, on the client itself while checked out. Without listeners either would crash the
  // process; the query in flight still fails (and answers 503), and the pool replaces the client.
  pool.on('error', onIdleError)
  pool.on('connect', (client) => {
    client.on('error', () => undefined)
  })
  return pool
}

/**
 * Kysely's PostgreSQL dialect; its driver flushes deferred commits, or runs their statements plain
 * (`commit`: POSTGRES_AUDIT_COMMIT; db/flush-after-commit.ts).
 */
class FlushAfterCommitDialect extends PostgresDialect {
  constructor(
    pool: pg.Pool,
    private readonly commit: AuditCommit,
  ) {
    super({ pool })
  }

  override createDriver(): Driver {
    return new FlushAfterCommitDriver(super.createDriver(), this.commit)
  }
}

export function createPostgresDialect(pool: pg.Pool, commit: AuditCommit): PostgresDialect {
  return new FlushAfterCommitDialect(pool, commit)
}

/** Runs a read as the named prepared statement `name` (db/precompiled.ts). */
export type PreparedReader = <Row>(
  name: string,
  text: string,
  values: ReadonlyArray<string | number | null>,
) => Promise<Row[]>

/** The same on the pool, whose values may be anything pg binds (a text array among them). */
export type PoolReader = <Row>(
  name: string,
  text: string,
  values: readonly unknown[],
) => Promise<Row[]>

/**
 * How an instance's DATABASE_POOL_SIZE connections are shared: two of them (one when the size is
 * 3) carry the pipelined hot reads — the first carries them all, the second its overflow
 * (createPipelinedReader) — the rest are Kysely's pool. Below 3 there is no pipelined
 * reader and the hot reads go through the pool. The configured figure stays the instance's bound.
 */
export function splitConnections(poolSize: number): { pool: number; pipelined: number } {
  const pipelined = poolSize >= 4 ? 2 : poolSize === 3 ? 1 : 0
  return { pool: poolSize - pipelined, pipelined }
}

/**
 * The hot reads on the pool, as named prepared statements (when the pool is too small to share).
 * The pool's connections keep PostgreSQL's own choice of plan (HOT_READ_SETTINGS would also force
 * Kysely's statements, which run on the same connections, to generic plans).
 */
export function createPoolReader(pool: pg.Pool): PoolReader {
  return async <Row>(name: string, text: string, values: readonly unknown[]) => {
    const result = await pool.query<Row & pg.QueryResultRow>({
      name,
      text,
      values: values as unknown[],
    })
    return result.rows
  }
}
