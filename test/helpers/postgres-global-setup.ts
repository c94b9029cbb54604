/**
 * Marks this run (RUN_TOKEN_ENV, inherited by the workers), migrates its template database once
 * (TEMPLATE_ENV: every test file's database is a copy of it) and has the run's databases dropped
 * when it ends, by a process of its own. First it drops the databases an earlier, interrupted run
 * left behind — only stale ones: another run on the same server (a second worktree, a parallel
 * CI job) may be using the fresh ones. Stale `sbt_` schemas in the shared database go by the same
 * rule.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createDatabase } from '../../src/db/client.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { dropAll } from './drop-databases.mjs'
import {
  isOfRun,
  isStale,
  newTestName,
  RUN_TOKEN_ENV,
  TEMPLATE_ENV,
  TEST_NAME_PREFIX,
  TEST_SCHEMA,
  testDatabaseUrl,
  testPostgresUrl,
} from './database.js'

/**
 * Drops at a time at the end: each waits for a checkpoint, and drops waiting together share one
 * (32 drops: 29 s one after the other, 6 s eight at a time).
 */
const PARALLEL_DROPS = 8

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

async function testDatabases(which: (name: string) => boolean): Promise<string[]> {
  const { rows } = await withClient(testPostgresUrl(), (client) =>
    client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
      `${TEST_NAME_PREFIX}%`,
    ]),
  )
  return rows.map((row) => row.datname).filter(which)
}

async function dropDatabases(which: (name: string) => boolean): Promise<void> {
  await dropAll(testPostgresUrl(), await testDatabases(which), PARALLEL_DROPS)
}

async function dropStaleSchemas(): Promise<void> {
  await withClient(testPostgresUrl(), async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      `select nspname from pg_namespace where nspname like $1`,
      [`${TEST_NAME_PREFIX}%`],
    )
    for (const { nspname } of rows.filter((row) => isStale(row.nspname)))
      await client.query(`drop schema if exists "${nspname}" cascade`)
  })
}

/**
 * The run's template: pg_trgm in `public` (where a deployment's database has it; the migrations
 * name the schema they find it in), the tables in TEST_SCHEMA, every migration applied. Closed to
 * connections afterwards: PostgreSQL copies a database only while nobody is connected to it.
 */
async function createTemplate(): Promise<string> {
  const name = newTestName()
  await withClient(testPostgresUrl(), (client) => client.query(`create database "${name}"`))
  const url = testDatabaseUrl(name)
  await withClient(url, (client) =>
    client.query(`create extension pg_trgm with schema public; create schema ${TEST_SCHEMA}`),
  )
  const handle = createDatabase(
    {
      kind: 'postgres',
      url,
      poolSize: 1,
      hotReads: 'pool',
      auditCommit: 'grouped',
      readCache: false,
    },
    { warn: () => undefined },
  )
  try {
    await migrateToLatest(handle)
  } finally {
    await handle.close()
  }
  await withClient(testPostgresUrl(), (client) =>
    client.query(`alter database "${name}" with allow_connections false`),
  )
  return name
}

/**
 * The run's databases, dropped by a process of its own that outlives the run: about 170 drops, each
 * waiting for a checkpoint, took 30–110 s that the run's result does not depend on. What it leaves
 * (a machine shut down meanwhile) the next run's start drops as stale.
 */
async function dropInTheBackground(run: string): Promise<void> {
  const names = await testDatabases((name) => isOfRun(name, run))
  const script = fileURLToPath(new URL('./drop-databases.mjs', import.meta.url))
  const child = spawn(
    process.execPath,
    [script, testPostgresUrl(), String(PARALLEL_DROPS), ...names],
    { detached: true, stdio: 'ignore' },
  )
  child.unref()
}

export default async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(2).toString('hex')
  process.env[RUN_TOKEN_ENV] = run
  await Promise.all([dropDatabases((name) => isStale(name)), dropStaleSchemas()])
  process.env[TEMPLATE_ENV] = await createTemplate()
  return () => dropInTheBackground(run)
}
