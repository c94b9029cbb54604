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

/** `sbt_<creation time, ms, base 36>_<random>`: the name says when it was made. */
export function newSchemaName(now = Date.now()): string {
  return `${TEST_SCHEMA_PREFIX}${now.toString(36)}_${randomBytes(4).toString('hex')}`
}

/** True for a test schema older than STALE_SCHEMA_AGE_MS; other names (not ours, or older formats) are left alone. */
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
  // No parallel query workers: under a loaded test server they intermittently failed to see a schema
  // created moments before ("schema … does not exist (where: parallel worker)").
  url.searchParams.set('options', `-c search_path=${schema} -c max_parallel_workers_per_gather=0`)
  return {
    engine: 'postgres',
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base })
      await client.connect()
      await client.query(`drop schema if exists "${schema}" cascade`)
      await client.end()
    },
  }
}

export async function createTestDatabase(dataDir: string): Promise<TestDatabase> {
  if (testEngine() === 'postgres') return createPostgresSchema()
  return { engine: 'sqlite', url: `sqlite:${path.join(dataDir, 'test.db')}`, drop: async () => undefined }
}

export function makeTempDir(label = 'switchboard-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), label))
}
