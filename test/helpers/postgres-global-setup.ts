/**
 * Drops the schemas that test files of an earlier, interrupted run left behind — only stale ones:
 * another run on the same server (a second worktree, a parallel CI job) may be using the fresh ones.
 */
import pg from 'pg'
import { isStaleSchema, TEST_SCHEMA_PREFIX, testPostgresUrl } from './database.js'

export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl() })
  await client.connect()
  try {
    const { rows } = await client.query<{ nspname: string }>(`select nspname from pg_namespace where nspname like $1`, [`${TEST_SCHEMA_PREFIX}%`])
    for (const { nspname } of rows.filter((row) => isStaleSchema(row.nspname))) {
      await client.query(`drop schema if exists "${nspname}" cascade`)
    }
  } finally {
    await client.end()
  }
}
