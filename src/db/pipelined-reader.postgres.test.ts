/**
 * The pipelined hot-read connections (db/postgres.ts createPipelinedReader) against a real
 * PostgreSQL: answers stay with their reads under a burst, a failing read fails alone, a connection
 * the server drops fails only the reads in flight (as "unavailable", hence 503) and the next read
 * opens a new one, and closing leaves no connection behind.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testPostgresUrl } from '../../test/helpers/database.js'
import { isDatabaseUnavailable } from './client.js'
import { createPipelinedReader, createPoolReader, createPostgresPool, splitConnections, type PipelinedReader } from './postgres.js'

const APPLICATION = `pipelined-reader-test-${process.pid}`
let admin: pg.Client
let reader: PipelinedReader
const problems: Error[] = []

function urlWithName(): string {
  const url = new URL(testPostgresUrl())
  url.searchParams.set('application_name', APPLICATION)
  return url.toString()
}

const backends = async () =>
  (await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [APPLICATION])).rows.map((row) => row.pid)

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testPostgresUrl() })
  await admin.connect()
  reader = createPipelinedReader(urlWithName(), 2, (error) => problems.push(error))
})

afterAll(async () => {
  await reader.close()
  await admin.end()
})

const ECHO = 'select $1::int as n, $1::int * 2 as twice'

describe('pipelined reader', () => {
  it('keeps each answer with its read under a burst of 500, on its two connections', async () => {
    const answers = await Promise.all(Array.from({ length: 500 }, (_, n) => reader.read<{ n: number; twice: number }>('sb_test_echo', ECHO, [n])))
    answers.forEach((rows, n) => expect(rows).toEqual([{ n, twice: 2 * n }]))
    expect(await backends()).toHaveLength(2)
  })

  it('fails a wrong read alone; the reads written around it in the same turn succeed', async () => {
    const reads = [1, 0, 3].map((d) => reader.read<{ q: number }>('sb_test_divide', 'select 6 / $1::int as q', [d]))
    const [first, second, third] = (await Promise.allSettled(reads)) as [
      PromiseSettledResult<{ q: number }[]>,
      PromiseSettledResult<{ q: number }[]>,
      PromiseSettledResult<{ q: number }[]>,
    ]
    expect(first).toEqual({ status: 'fulfilled', value: [{ q: 6 }] })
    expect(second.status).toBe('rejected')
    expect((second as PromiseRejectedResult).reason).toMatchObject({ code: '22012' })
    expect(isDatabaseUnavailable((second as PromiseRejectedResult).reason)).toBe(false)
    expect(third).toEqual({ status: 'fulfilled', value: [{ q: 2 }] })
  })

  it('when the server drops its connections: reads in flight fail as unavailable, the next reads open new ones', async () => {
    const before = await backends()
    expect(before).toHaveLength(2)
    // Settled from the start: the reads fail while the termination's own query is still being answered.
    const slow = Promise.allSettled(Array.from({ length: 4 }, () => reader.read('sb_test_sleep', 'select pg_sleep($1::float8) as slept', [2])))
    await new Promise((resolve) => setTimeout(resolve, 200))
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [APPLICATION])
    const settled = await slow
    for (const outcome of settled) {
      expect(outcome.status).toBe('rejected')
      expect(isDatabaseUnavailable((outcome as PromiseRejectedResult).reason)).toBe(true)
    }
    expect(problems.length).toBeGreaterThan(0)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => reader.read<{ n: number }>('sb_test_echo', ECHO, [n])))
    answers.forEach((rows, n) => expect(rows[0]!.n).toBe(n))
    const after = await backends()
    expect(after).toHaveLength(2)
    expect(after.some((pid) => before.includes(pid))).toBe(false)
  })

  it('closes its connections, and a read after closing is refused as unavailable', async () => {
    const own = createPipelinedReader(urlWithName(), 2, () => undefined)
    await own.read('sb_test_echo', ECHO, [1])
    await own.close()
    await expect(own.read('sb_test_echo', ECHO, [1])).rejects.toSatisfy(isDatabaseUnavailable)
    // Only the suite's own reader is left.
    expect((await backends()).length).toBeLessThanOrEqual(2)
  })
})

describe('splitConnections', () => {
  it('runs every read on its generic plan, never planned again for its values (on both pipelined connections; the pool keeps its own choice)', async () => {
    for (let i = 0; i < 10; i++) await reader.read('sb_test_generic', 'select $1::int + 0 as n', [i])
    // Two reads in a row go to the two connections.
    const stats = await Promise.all(
      [0, 1].map(() =>
        reader.read<{ mode: string; generic: number; custom: number }>(
          'sb_test_plans',
          "select current_setting('plan_cache_mode') as mode, coalesce(sum(generic_plans), 0)::int as generic, coalesce(sum(custom_plans), 0)::int as custom from pg_prepared_statements where name = $1",
          ['sb_test_generic'],
        ),
      ),
    )
    expect(stats.map((rows) => rows[0]!.mode)).toEqual(['force_generic_plan', 'force_generic_plan'])
    expect(stats.reduce((sum, rows) => sum + rows[0]!.generic, 0)).toBe(10)
    expect(stats.reduce((sum, rows) => sum + rows[0]!.custom, 0)).toBe(0)

    const pool = createPostgresPool(testPostgresUrl(), 1, (error) => problems.push(error))
    try {
      // The pool's connections, which also run Kysely's statements, keep PostgreSQL's own choice.
      const rows = await createPoolReader(pool)<{ mode: string }>('sb_test_pool_mode', "select current_setting('plan_cache_mode') || $1 as mode", [
        '',
      ])
      expect(rows).toEqual([{ mode: 'auto' }])
    } finally {
      await pool.end()
    }
  })

  it("keeps the instance's connections at DATABASE_POOL_SIZE", () => {
    for (let size = 1; size <= 20; size++) {
      const { pool, pipelined } = splitConnections(size)
      expect(pool + pipelined).toBe(size)
      expect(pool).toBeGreaterThanOrEqual(1)
    }
    expect(splitConnections(10)).toEqual({ pool: 8, pipelined: 2 })
    expect(splitConnections(2)).toEqual({ pool: 2, pipelined: 0 })
  })
})
