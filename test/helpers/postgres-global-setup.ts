/**
 * Marks this run (RUN_TOKEN_ENV, inherited by the workers), migrates its template database once
 * (TEMPLATE_ENV: every test file's database is a copy of it) and drops the run's databases when it
 * ends; first drops the databases an earlier, interrupted run left behind — only stale ones:
 * another run on the same server (a second worktree, a parallel CI job) may be using the fresh
 * ones. Stale `sbt_` schemas in the shared database go by the same rule.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createDatabase } from '../../src/db/client.js'
import { migrateToLatest } from '../../src/db/migrate.js'
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

async function dropDatabases(which: (name: string) => boolean): Promise<void> {
  const { rows } = await withClient(testPostgresUrl(), (client) =>
    client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
      `${TEST_NAME_PREFIX}%`,
    ]),
  )
  const names = rows.map((row) => row.datname).filter(which)
  const worker = () =>
    withClient(testPostgresUrl(), async (client) => {
      for (let name = names.pop(); name !== undefined; name = names.pop())
        await client.query(`drop database if exists "${name}" with (force)`)
    })
  await Promise.all(Array.from({ length: Math.min(PARALLEL_DROPS, names.length) }, worker))
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
    { kind: 'postgres', url, poolSize: 1, hotReads: 'pool', readCache: false },
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

export default async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(2).toString('hex')
  process.env[RUN_TOKEN_ENV] = run
  await Promise.all([dropDatabases((name) => isStale(name)), dropStaleSchemas()])
  process.env[TEMPLATE_ENV] = await createTemplate()
  return () => dropDatabases((name) => isOfRun(name, run))
}
