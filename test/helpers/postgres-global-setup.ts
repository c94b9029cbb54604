/**
 * Marks this run's schemas (RUN_TOKEN_ENV, inherited by the workers) and drops them all when the
 * run ends; first drops the schemas an earlier, interrupted run left behind — only stale ones:
 * another run on the same server (a second worktree, a parallel CI job) may be using the fresh
 * ones.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import {
  isSchemaOfRun,
  isStaleSchema,
  RUN_TOKEN_ENV,
  TEST_SCHEMA_PREFIX,
  testPostgresUrl,
} from './database.js'

async function dropSchemas(which: (name: string) => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl() })
  await client.connect()
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `select nspname from pg_namespace where nspname like $1`,
      [`${TEST_SCHEMA_PREFIX}%`],
    )
    for (const { nspname } of rows.filter((row) => which(row.nspname))) {
      await client.query(`drop schema if exists "${nspname}" cascade`)
    }
  } finally {
    await client.end()
  }
}

/**
 * pg_trgm in `public`, once per database, before any file migrates: a migration creates it in its
 * own schema when absent, and a test schema dropped with it would take every run's trigram
 * indexes along (drop … cascade).
 */
async function createTrigramExtension(): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl() })
  await client.connect()
  try {
    await client.query('create extension if not exists pg_trgm with schema public')
  } catch (error) {
    // Another run's setup created it at the same moment.
    const { rows } = await client.query(`select 1 from pg_extension where extname = 'pg_trgm'`)
    if (rows.length === 0) throw error
  } finally {
    await client.end()
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(2).toString('hex')
  process.env[RUN_TOKEN_ENV] = run
  await createTrigramExtension()
  await dropSchemas((name) => isStaleSchema(name))
  return () => dropSchemas((name) => isSchemaOfRun(name, run))
}
