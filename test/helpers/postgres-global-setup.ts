/** Drops the schemas that test files of an earlier, interrupted run left behind. */
import pg from 'pg'
import { TEST_SCHEMA_PREFIX, testPostgresUrl } from './database.js'

export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl() })
  await client.connect()
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `select nspname from pg_namespace where nspname like $1`,
      [`${TEST_SCHEMA_PREFIX}%`],
    )
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`)
  } finally {
    await client.end()
  }
}
