/**
 * The pipelined hot-read connections (db/drivers/pg-pipelined-reader.ts) against a real
 * PostgreSQL: answers stay with their reads under a burst, a failing read fails alone, a connection
 * the server drops fails only the reads in flight (as "unavailable", hence 503) and the next read
 * opens a new one, and closing leaves no connection behind.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testPostgresUrl } from '../../../test/helpers/database.js'
import { isDatabaseUnavailable } from '../client.js'
import { createPipelinedReader, type PipelinedReader } from './pg-pipelined-reader.js'
import { createPoolReader, createPostgresPool, splitConnections } from '../postgres.js'

const APPLICATION = `pipelined-reader-test-${process.pid}`
let admin: pg.Client
let reader: PipelinedReader
const problems: Error[] = []

function urlWithName(name = APPLICATION): string {
  const url = new URL(testPostgresUrl())
  url.searchParams.set('application_name', name)
  return url.toString()
}

const backends = async (name = APPLICATION) =>
  (
    await admin.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [name],
    )
  ).rows.map((row) => row.pid)

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
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, n) =>
        reader.read<{ n: number; twice: number }>('sb_test_echo', ECHO, [n]),
      ),
    )
    answers.forEach((rows, n) => expect(rows).toEqual([{ n, twice: 2 * n }]))
    expect(await backends()).toHaveLength(2)
  })

  it("reads the same rows as pg's own query path: every type the service reads, nulls, and a column whose value is refused", async () => {
    // pg's Result (pool.query) is the independent reading of the same messages
    // (db/drivers/pg-hot-read.ts keeps its own).
    const pool = createPostgresPool(testPostgresUrl(), 1, () => undefined)
    const text = `select $1::text as t, $2::int as i, 9007199254740991::int8 as big, true as b, null::text as nothing,
      '2026-11-27 10:00:00.5+00'::timestamptz as at, '{"a":[1]}'::jsonb as j, $2::int + 1 as "i plus one"`
    try {
      const own = await Promise.all(
        [7, 8].map((i) => reader.read('sb_test_types', text, ['naïve ✓', i])),
      )
      const theirs = await Promise.all(
        [7, 8].map(async (i) => (await pool.query(text, ['naïve ✓', i])).rows),
      )
      expect(own).toEqual(theirs)
      expect(own[0]).toEqual([
        {
          t: 'naïve ✓',
          i: 7,
          big: 9007199254740991,
          b: true,
          nothing: null,
          at: '2026-11-27T10:00:00.500Z',
          j: { a: [1] },
          'i plus one': 8,
        },
      ])
      // A timestamp the service's parser cannot read (a six-digit year) fails that read alone.
      const [bad, good] = await Promise.allSettled([
        reader.read('sb_test_far', "select '200000-01-01 00:00:00+02'::timestamptz as at", []),
        reader.read('sb_test_types', text, ['x', 1]),
      ])
      expect(bad.status).toBe('rejected')
      expect(good).toMatchObject({ status: 'fulfilled', value: [{ t: 'x', i: 1 }] })
    } finally {
      await pool.end()
    }
  })

  it('fails a wrong read alone; the reads written around it in the same turn succeed', async () => {
    const reads = [1, 0, 3].map((d) =>
      reader.read<{ q: number }>('sb_test_divide', 'select 6 / $1::int as q', [d]),
    )
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
    // Settled from the start: the reads fail while the termination's own query is still being
    // answered.
    const slow = Promise.allSettled(
      Array.from({ length: 4 }, () =>
        reader.read('sb_test_sleep', 'select pg_sleep($1::float8) as slept', [2]),
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
      [APPLICATION],
    )
    const settled = await slow
    for (const outcome of settled) {
      expect(outcome.status).toBe('rejected')
      expect(isDatabaseUnavailable((outcome as PromiseRejectedResult).reason)).toBe(true)
    }
    // Both connections' ends heard: the idle one's may come after the reads above failed, and until
    // then reads past the first connection's 16 could still be written to it and fail as
    // unavailable — rightly, but that is not what this test looks at.
    await vi.waitFor(
      () =>
        expect(
          problems.filter((error) => error.message.includes('Connection terminated')),
        ).toHaveLength(2),
      { timeout: 5000 },
    )
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => reader.read<{ n: number }>('sb_test_echo', ECHO, [n])),
    )
    answers.forEach((rows, n) => expect(rows[0]!.n).toBe(n))
    const after = await backends()
    expect(after).toHaveLength(2)
    expect(after.some((pid) => before.includes(pid))).toBe(false)
  })

  it('keeps the reads on one connection until 16 are in flight on it; the second takes only the overflow', async () => {
    const name = `${APPLICATION}-spill`
    const own = createPipelinedReader(urlWithName(name), 2, () => undefined)
    const backendOf = () =>
      own.read<{ pid: number }>('sb_test_backend', 'select pg_backend_pid() as pid', [])
    try {
      // Ten at once, as ten connections' requests arriving together: one server process answers
      // them all.
      const ten = await Promise.all(Array.from({ length: 10 }, backendOf))
      expect(new Set(ten.map((rows) => rows[0]!.pid)).size).toBe(1)
      expect(await backends(name)).toHaveLength(1)
      // Forty at once: the first sixteen on the first connection, the next sixteen on the second,
      // then the less busy.
      const forty = (await Promise.all(Array.from({ length: 40 }, backendOf))).map(
        (rows) => rows[0]!.pid,
      )
      const [first, second] = [forty[0]!, forty[16]!]
      expect(first).toBe(ten[0]![0]!.pid)
      expect(second).not.toBe(first)
      expect(forty.slice(0, 16).every((pid) => pid === first)).toBe(true)
      expect(forty.slice(16, 32).every((pid) => pid === second)).toBe(true)
      expect(forty.filter((pid) => pid === first)).toHaveLength(20)
      expect(await backends(name)).toHaveLength(2)
    } finally {
      await own.close()
    }
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
  it('runs every read on its generic plan, never planned again for its values, and without sequential or bitmap scans (on both pipelined connections; the pool keeps its own choices)', async () => {
    // Thirty-two at once: sixteen on each connection.
    await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        reader.read('sb_test_generic', 'select $1::int + 0 as n', [i]),
      ),
    )
    const stats = await Promise.all(
      Array.from({ length: 32 }, () =>
        reader.read<{ pid: number; mode: string; scans: string; generic: number; custom: number }>(
          'sb_test_plans',
          "select pg_backend_pid() as pid, current_setting('plan_cache_mode') as mode, current_setting('enable_seqscan') || ' ' || current_setting('enable_bitmapscan') as scans, coalesce(sum(generic_plans), 0)::int as generic, coalesce(sum(custom_plans), 0)::int as custom from pg_prepared_statements where name = $1",
          ['sb_test_generic'],
        ),
      ),
    )
    const byBackend = new Map(stats.map((rows) => [rows[0]!.pid, rows[0]!]))
    expect(byBackend.size).toBe(2)
    expect([...byBackend.values()].map((row) => row.mode)).toEqual([
      'force_generic_plan',
      'force_generic_plan',
    ])
    expect([...byBackend.values()].map((row) => row.scans)).toEqual(['off off', 'off off'])
    expect([...byBackend.values()].reduce((sum, row) => sum + row.generic, 0)).toBe(32)
    expect([...byBackend.values()].reduce((sum, row) => sum + row.custom, 0)).toBe(0)

    const pool = createPostgresPool(testPostgresUrl(), 1, (error) => problems.push(error))
    try {
      // The pool's connections, which also run Kysely's statements, keep PostgreSQL's own choice.
      const rows = await createPoolReader(pool)<{ mode: string }>(
        'sb_test_pool_mode',
        "select current_setting('plan_cache_mode') || ' ' || current_setting('enable_seqscan') || ' ' || current_setting('enable_bitmapscan') || $1 as mode",
        [''],
      )
      expect(rows).toEqual([{ mode: 'auto on on' }])
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
