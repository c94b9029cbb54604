/**
 * A read compiled once (db/precompiled.ts compiledOnce) runs on PostgreSQL as a named prepared
 * statement on a connection of Kysely's pool, where PostgreSQL keeps its own choice of plan — not
 * on the pipelined connections, whose settings force the plan for any values.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../../test/helpers/app.js'
import { createUser } from '../../test/helpers/factories.js'
import { compiledOnce } from './precompiled.js'

let t: TestContext
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t.close())

/** What the connection that runs it has prepared of its own text, and how it chooses plans. */
const selfReport = compiledOnce(['name'], (ex, p) =>
  ex
    .selectFrom('users')
    .select(
      sql<
        string | null
      >`(select string_agg(statement, '') from pg_prepared_statements where name like 'sb\\_%' and statement like '%compiled once, self-report%')`.as(
        'prepared',
      ),
    )
    .select(sql<string>`current_setting('plan_cache_mode')`.as('plan_cache_mode'))
    .select(sql<string>`current_setting('enable_seqscan')`.as('enable_seqscan'))
    .where('name', '=', p.name)
    .where(sql<boolean>`'compiled once, self-report' <> ''`),
)

describe('a read compiled once, on PostgreSQL', () => {
  it('is a named statement on the pool, planned as PostgreSQL chooses', async () => {
    await createUser(t, { name: 'Pooled' })
    for (let call = 0; call < 3; call++) {
      const [row] = await selfReport(t.deps.db, { name: 'Pooled' })
      expect(row!.prepared).toContain('compiled once, self-report')
      expect(row!.plan_cache_mode).toBe('auto')
      expect(row!.enable_seqscan).toBe('on')
    }
  })

  it('runs in a transaction on the transaction’s connection: it sees what the transaction wrote', async () => {
    const { user } = await createUser(t, { name: 'Before the transaction' })
    const rows = await t.deps.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('users')
        .set({ name: 'In a transaction' })
        .where('id', '=', user.id)
        .execute()
      // Outside the transaction (on the pool) the change is not there yet.
      expect(await selfReport(t.deps.db, { name: 'In a transaction' })).toEqual([])
      return selfReport(tx, { name: 'In a transaction' })
    })
    expect(rows).toHaveLength(1)
  })
})
