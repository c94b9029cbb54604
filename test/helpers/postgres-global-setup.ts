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

export default async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(2).toString('hex')
  process.env[RUN_TOKEN_ENV] = run
  await dropSchemas((name) => isStaleSchema(name))
  return () => dropSchemas((name) => isSchemaOfRun(name, run))
}
