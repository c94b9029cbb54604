/**
 * Which engine an executor talks to, for the few statements that are written per engine (a
 * PostgreSQL array parameter, a SQLite `begin immediate`): one test, so every caller asks the same
 * way.
 */
import { PostgresAdapter } from 'kysely'
import type { Executor } from './schema.js'

export const isPostgres = (ex: Executor): boolean =>
  ex.getExecutor().adapter instanceof PostgresAdapter
