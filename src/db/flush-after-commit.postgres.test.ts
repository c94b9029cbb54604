/**
 * Commits that release their locks before the WAL flush (db/flush-after-commit.ts), against a real
 * PostgreSQL: a transaction that runs a marked statement commits with synchronous commit off and
 * is reported committed only after a synchronous commit of its own has flushed the WAL past it;
 * other transactions, and marked ones that roll back, run exactly as before. With
 * POSTGRES_AUDIT_COMMIT=plain a marked statement runs as its plain twin and nothing follows the
 * commit.
 */
import { CompiledQuery, Kysely, sql } from 'kysely'
import type pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { testPostgresUrl } from '../../test/helpers/database.js'
import { ASYNC_COMMIT, flushAfterCommit, type AuditCommit } from './flush-after-commit.js'
import { createPostgresDialect, createPostgresPool } from './postgres.js'

const MARKED = flushAfterCommit(
  CompiledQuery.raw(`select ${ASYNC_COMMIT} as setting`),
  CompiledQuery.raw(`select 'plain' as setting`),
)
const FLUSH = "select pg_logical_emit_message(true, 'switchboard.flush', '')"

let db: Kysely<Record<string, never>>
let plainDb: Kysely<Record<string, never>>
let sent: string[]

/**
 * A database of one connection (every transaction of a test runs on the same one, as a pool reuses
 * them) whose statements are noted in `sent`.
 */
function watchedDatabase(commit: AuditCommit): Kysely<Record<string, never>> {
  const pool: pg.Pool = createPostgresPool(testPostgresUrl(), 1, () => undefined)
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      const config = args[0] as string | { text: string }
      sent.push(typeof config === 'string' ? config : config.text)
      return query(...args)
    }) as typeof client.query
  })
  return new Kysely({ dialect: createPostgresDialect(pool, commit) })
}

beforeAll(() => {
  db = watchedDatabase('grouped')
  plainDb = watchedDatabase('plain')
})

afterAll(async () => {
  await Promise.all([db.destroy(), plainDb.destroy()])
})

beforeEach(() => {
  sent = []
})

const setting = async (ex: Kysely<Record<string, never>>) =>
  (await sql<{ s: string }>`select current_setting('synchronous_commit') as s`.execute(ex)).rows[0]!
    .s

describe('flush after commit', () => {
  it('commits a marked transaction asynchronously, then flushes before reporting it', async () => {
    const inside = await db.transaction().execute(async (tx) => {
      await tx.executeQuery(MARKED)
      const lsn = await sql<{
        lsn: string
      }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(tx)
      return { setting: await setting(tx), lsn: lsn.rows[0]!.lsn }
    })
    expect(inside.setting).toBe('off')
    // One round trip: the commit and the flush in one simple-protocol message.
    expect(sent.at(-1)).toBe(`commit; ${FLUSH}`)
    // Reported committed only once the WAL is on disk past everything the transaction wrote.
    const flushed = await sql<{ ok: boolean }>`
      select pg_current_wal_flush_lsn() >= ${inside.lsn}::pg_lsn as ok`.execute(db)
    expect(flushed.rows[0]!.ok).toBe(true)
    // The setting was the transaction's own: the connection's next one commits synchronously.
    expect(await db.transaction().execute((tx) => setting(tx))).toBe('on')
  })

  it('runs no flush when the commit fails, and reports the failure, nothing committed', async () => {
    await sql`create temporary table deferred_check (
      id integer constraint deferred_unique unique deferrable initially deferred)`.execute(db)
    try {
      await expect(
        db.transaction().execute(async (tx) => {
          await tx.executeQuery(MARKED)
          await sql`insert into deferred_check values (1), (1)`.execute(tx)
        }),
      ).rejects.toMatchObject({ code: '23505' })
      expect(sent.at(-2)).toBe(`commit; ${FLUSH}`)
      const rows = await sql<{ n: number }>`select count(*)::int as n from deferred_check`.execute(
        db,
      )
      expect(rows.rows[0]!.n).toBe(0)
      // The connection is out of the failed transaction: its next one commits as usual.
      await db.transaction().execute((tx) => sql`insert into deferred_check values (2)`.execute(tx))
      expect(sent.slice(-3)).toEqual(['begin', 'insert into deferred_check values (2)', 'commit'])
    } finally {
      await sql`drop table deferred_check`.execute(db)
    }
  })

  it('leaves other transactions as they were: one commit, no flush of its own', async () => {
    await db.transaction().execute((tx) => sql`select 1`.execute(tx))
    expect(sent).toEqual(['begin', 'select 1', 'commit'])
  })

  it('runs no flush for a marked transaction that rolls back, nor for the next one', async () => {
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.executeQuery(MARKED)
        throw new Error('the change fails')
      }),
    ).rejects.toThrow('the change fails')
    await db.transaction().execute((tx) => sql`select 2`.execute(tx))
    expect(sent).not.toContain(FLUSH)
    expect(sent.slice(-3)).toEqual(['begin', 'select 2', 'commit'])
  })

  it('canary: pg sends a query without values by the simple protocol, several statements in one', async () => {
    // COMMIT_THEN_FLUSH relies on it (pg 8.23.1, pinned; docs/decisions/0073). Should pg change,
    // this fails by name; POSTGRES_AUDIT_COMMIT=plain sends neither statement.
    const result = await db.executeQuery(CompiledQuery.raw('select 1 as one; select 2 as two'))
    expect(result.rows).toEqual([])
    expect(sent.at(-1)).toBe('select 1 as one; select 2 as two')
  })

  it('refuses to mark a statement that does not turn synchronous commit off', () => {
    expect(() =>
      flushAfterCommit(CompiledQuery.raw('select 1'), CompiledQuery.raw('select 1')),
    ).toThrow()
  })
})

describe('POSTGRES_AUDIT_COMMIT=plain', () => {
  it('runs a marked statement as its plain twin: a synchronous commit, no flush after it', async () => {
    const inside = await plainDb.transaction().execute(async (tx) => {
      const { rows } = await tx.executeQuery<{ setting: string }>(MARKED)
      return { answer: rows[0]!.setting, setting: await setting(tx) }
    })
    expect(inside).toEqual({ answer: 'plain', setting: 'on' })
    expect(sent).toEqual([
      'begin',
      "select 'plain' as setting",
      "select current_setting('synchronous_commit') as s",
      'commit',
    ])
    expect(sent).not.toContain(FLUSH)
  })

  it('refuses a plain twin that turns synchronous commit off', () => {
    const marked = CompiledQuery.raw(`select ${ASYNC_COMMIT}`)
    expect(() => flushAfterCommit(marked, marked)).toThrow()
  })
})
