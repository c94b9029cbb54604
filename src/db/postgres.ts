/**
 * PostgreSQL through a pg pool. Type parsers are set on the pool (not globally) so rows look the
 * same as on SQLite: timestamptz → ISO-8601 UTC string, int8 (counts) → number.
 */
import { createRequire } from 'node:module'
import type pg from 'pg'
import type * as PgModule from 'pg'
import { PostgresDialect } from 'kysely'

// The driver is loaded only when DATABASE_URL names PostgreSQL (ARCHITECTURE.md, "Runtime and footprint").
const require = createRequire(import.meta.url)

const TIMESTAMPTZ_OID = 1184
const INT8_OID = 20

// PostgreSQL's text form in UTC: "2026-11-21 10:00:00.123456+00", the fraction optional.
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/

/**
 * timestamptz as ISO-8601 UTC with milliseconds, as Date#toISOString writes it. Every
 * authentication query reads several (issue 33), so the common case — a session in UTC, as the
 * bench's and the documented set-ups are — is rearranged as text; any other zone goes through Date.
 */
export function timestamptzToIso(text: string): string {
  const utc = UTC_TEXT.exec(text)
  if (utc !== null) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`
  // "2026-11-21 12:00:00+02" (or "+05:30"): ISO-8601 before Date parses it.
  const iso = text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
  return new Date(iso).toISOString()
}

export function createPostgresPool(url: string, max: number, onIdleError: (error: Error) => void): pg.Pool {
  const pg = require('pg') as typeof PgModule.default
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Fail fast instead of queueing forever when the server is gone (see /api/health/ready).
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // A query on a connection whose server vanished without closing it must not hang forever.
    query_timeout: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === TIMESTAMPTZ_OID) return timestamptzToIso
        if (oid === INT8_OID) return (text: string) => Number(text)
        return pg.types.getTypeParser(oid, format) as (text: string) => unknown
      }) as typeof pg.types.getTypeParser,
    },
  })
  // A connection dropped by the server (restart, failover, network) emits 'error' — on the pool
  // while idle, on the client itself while checked out. Without listeners either would crash the
  // process; the query in flight still fails (and answers 503), and the pool replaces the client.
  pool.on('error', onIdleError)
  pool.on('connect', (client) => client.on('error', () => undefined))
  return pool
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool })
}

/** Runs a read as the named prepared statement `name` (db/precompiled.ts). */
export type PreparedReader = <Row>(name: string, text: string, values: ReadonlyArray<string | number | null>) => Promise<Row[]>

/**
 * Reads on the pool without Kysely in between, as named prepared statements: pg parses a name once
 * per connection (the server keeps its plan) and afterwards sends only Bind/Describe/Execute/Sync
 * in one write. Measured on the authentication query (bench/pg-drivers.mjs, ARCHITECTURE.md
 * "PostgreSQL hot path"), it costs about 60 % of the CPU of Kysely's path with an unnamed
 * statement. A statement is bound to its text: precompiled.ts names it by the text's hash.
 */
export function createPreparedReader(pool: pg.Pool): PreparedReader {
  return async <Row>(name: string, text: string, values: ReadonlyArray<string | number | null>) => {
    const result = await pool.query<Row & pg.QueryResultRow>({ name, text, values: values as unknown[] })
    return result.rows
  }
}
