/**
 * A fresh database for each test file: a new SQLite file, or a new PostgreSQL database copied from
 * the run's migrated template (test/helpers/postgres-global-setup.ts). The PostgreSQL tables live
 * in a named schema selected through the connection's search_path, as a deployment that shares a
 * database would select it; the application code is exactly what production runs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const TEST_NAME_PREFIX = 'sbt_'
/** The schema of every test database's tables (and of the template's). */
export const TEST_SCHEMA = 'switchboard_test'
/** A database this old is a leftover of an interrupted run, not one a concurrent run still uses. */
export const STALE_AGE_MS = 60 * 60 * 1000

/**
 * The run's own mark, set by the PostgreSQL global setup before the workers start: its teardown
 * drops exactly this run's databases.
 */
export const RUN_TOKEN_ENV = 'SWITCHBOARD_TEST_RUN'
/** The name of the run's migrated template database, set by the same global setup. */
export const TEMPLATE_ENV = 'SWITCHBOARD_TEST_TEMPLATE'

/**
 * `sbt_<creation time, ms, base 36>_<run token, 4 hex><random, 4 hex>`: the name says when, and for
 * which run, it was made.
 */
export function newTestName(now = Date.now()): string {
  const run = process.env[RUN_TOKEN_ENV] ?? randomBytes(2).toString('hex')
  return `${TEST_NAME_PREFIX}${now.toString(36)}_${run}${randomBytes(2).toString('hex')}`
}

/** True for a database (or schema) made by the run with this token. */
export function isOfRun(name: string, run: string): boolean {
  return new RegExp(`^${TEST_NAME_PREFIX}[0-9a-z]+_${run}[0-9a-f]{4}$`).test(name)
}

/**
 * True for a test database (or schema) older than STALE_AGE_MS; other names (not ours, or older
 * formats) are left alone.
 */
export function isStale(name: string, now = Date.now()): boolean {
  const match = new RegExp(`^${TEST_NAME_PREFIX}([0-9a-z]+)_[0-9a-f]{8}$`).exec(name)
  return match !== null && now - parseInt(match[1]!, 36) > STALE_AGE_MS
}
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test'

export function testPostgresUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_POSTGRES_URL
}

export type TestEngine = 'sqlite' | 'postgres'

export function testEngine(): TestEngine {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite'
}

export interface TestDatabase {
  engine: TestEngine
  /** A DATABASE_URL for this database. */
  url: string
  drop(): Promise<void>
}

/**
 * The URL of the test database `name`: its tables' schema first on the search_path. No parallel
 * query workers: the plan checks (test/helpers/query-plans.ts) hold reads to their indexes without
 * them, and on a 2-core machine running two test files they only compete for the same cores.
 */
export function testDatabaseUrl(name: string): string {
  const url = new URL(testPostgresUrl())
  url.pathname = `/${name}`
  url.searchParams.set(
    'options',
    `-c search_path=${TEST_SCHEMA} -c max_parallel_workers_per_gather=0`,
  )
  return url.toString()
}

/**
 * A copy of the run's template: a file-level copy of a migrated database takes a fraction of the
 * time its ~40 migrations take (docs/decisions/0050-test-databases-from-a-template.md).
 */
async function createPostgresDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_ENV]
  if (template === undefined)
    throw new Error(
      `${TEMPLATE_ENV} is not set: PostgreSQL tests run in the postgres project, whose global setup makes the template`,
    )
  const name = newTestName()
  const admin = new pg.Client({ connectionString: testPostgresUrl() })
  await admin.connect()
  try {
    await admin.query(`create database "${name}" template "${template}"`)
  } finally {
    await admin.end()
  }
  return {
    engine: 'postgres',
    url: testDatabaseUrl(name),
    // Dropped with the rest of the run's databases when the run ends (the global setup's
    // teardown), not here: PostgreSQL forces a checkpoint for every dropped database, and drops
    // made together share them.
    async drop() {},
  }
}

export async function createTestDatabase(dataDir: string): Promise<TestDatabase> {
  if (testEngine() === 'postgres') return createPostgresDatabase()
  return {
    engine: 'sqlite',
    url: `sqlite:${path.join(dataDir, 'test.db')}`,
    drop: async () => undefined,
  }
}

export function makeTempDir(label = 'switchboard-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), label))
}
