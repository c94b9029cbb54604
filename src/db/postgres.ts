/**
 * PostgreSQL through a pg pool. Type parsers are set on the pool (not globally) so rows look the
 * same as on SQLite: timestamptz → ISO-8601 UTC string, int8 (counts) → number.
 */
import pg from 'pg'
import { PostgresDialect } from 'kysely'

const TIMESTAMPTZ_OID = 1184
const INT8_OID = 20

function timestamptzToIso(text: string): string {
  // PostgreSQL prints "2026-11-21 10:00:00.123+00"; make it ISO-8601 before Date parses it.
  const iso = text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
  return new Date(iso).toISOString()
}

export function createPostgresPool(url: string, max: number): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    max,
    // Fail fast instead of queueing forever when the server is gone (see /api/health/ready).
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === TIMESTAMPTZ_OID) return timestamptzToIso
        if (oid === INT8_OID) return (text: string) => Number(text)
        return pg.types.getTypeParser(oid, format as 'text')
      }) as typeof pg.types.getTypeParser,
    },
  })
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool })
}
