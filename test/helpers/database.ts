/**
 * A fresh database for each test file: a new SQLite file, or a new PostgreSQL schema (selected
 * through the connection's search_path, so the application code is exactly what production runs).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const TEST_SCHEMA_PREFIX = 'sbt_'
/** A schema this old is a leftover of an interrupted run, not one a concurrent run still uses. */
export const STALE_SCHEMA_AGE_MS = 60 * 60 * 1000

/**
 * The run's own mark, set by the PostgreSQL global setup (test/helpers/postgres-global-setup.ts)
 * before the workers start: its teardown drops exactly this run's schemas.
 */
export const RUN_TOKEN_ENV = 'SWITCHBOARD_TEST_RUN'

/**
 * `sbt_<creation time, ms, base 36>_<run token, 4 hex><random, 4 hex>`: the name says when, and for
 * which run, it was made.
 */
export function newSchemaName(now = Date.now()): string {
  const run = process.env[RUN_TOKEN_ENV] ?? randomBytes(2).toString('hex')
  return `${TEST_SCHEMA_PREFIX}${now.toString(36)}_${run}${randomBytes(2).toString('hex')}`
}

/** True for a schema made by the run with this token. */
export function isSchemaOfRun(name: string, run: string): boolean {
  return new RegExp(`^${TEST_SCHEMA_PREFIX}[0-9a-z]+_${run}[0-9a-f]{4}$`).test(name)
}

/**
 * True for a test schema older than STALE_SCHEMA_AGE_MS; other names (not ours, or older formats)
 * are left alone.
 */
export function isStaleSchema(name: string, now = Date.now()): boolean {
  const match = new RegExp(`^${TEST_SCHEMA_PREFIX}([0-9a-z]+)_[0-9a-f]{8}$`).exec(name)
  return match !== null && now - parseInt(match[1]!, 36) > STALE_SCHEMA_AGE_MS
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

async function createPostgresSchema(): Promise<TestDatabase> {
  const base = testPostgresUrl()
  const schema = newSchemaName()
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create schema "${schema}"`)
  await admin.end()
  const url = new URL(base)
  // No parallel query workers: under a loaded test server they intermittently failed to see a
  // schema created moments before ("schema … does not exist (where: parallel worker)").
  url.searchParams.set('options', `-c search_path=${schema} -c max_parallel_workers_per_gather=0`)
  return {
    engine: 'postgres',
    url: url.toString(),
    // Dropped with the rest of the run's schemas when the run ends (the global setup's teardown),
    // not here: Kysely's migrator introspects every table of the database, and a schema dropped
    // while another file migrates made that introspection fail ("schema … does not exist").
    async drop() {},
  }
}

export async function createTestDatabase(dataDir: string): Promise<TestDatabase> {
  if (testEngine() === 'postgres') return createPostgresSchema()
  return {
    engine: 'sqlite',
    url: `sqlite:${path.join(dataDir, 'test.db')}`,
    drop: async () => undefined,
  }
}

export function makeTempDir(label = 'switchboard-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), label))
}
