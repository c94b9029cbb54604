/**
 * POSTGRES_AUDIT_COMMIT on one PostgreSQL database shared by an instance of each setting:
 * `grouped` (the default) commits an audited transaction without holding the tree head through the
 * WAL flush and runs a flush transaction after it (db/flush-after-commit.ts); `plain` appends with
 * the plain statement, commits synchronously and runs nothing after. Either way every
 * event gets the next leaf and the head stays the tree of the leaves.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Deps } from '../src/deps.js'
import { makeCheckpoint } from '../src/modules/audit/checkpoints.js'
import { checkDatabase } from '../src/modules/audit/integrity.js'
import { recordAudit } from '../src/modules/audit/service.js'
import { startPeerInstance, useTestApp } from './helpers/app.js'
import { AFTER_APPEND_PROBE } from './helpers/audit-append-order.js'
import { statementsOf } from './helpers/query-plans.js'

/** A grouped transaction ends with its commit and the flush, in one message. */
const FLUSH = "commit; select pg_logical_emit_message(true, 'switchboard.flush', '')"
const APPENDS = 20
/** How the append statement ends in each mode: the select list, with or without set_config. */
const GROUPED_SELECT = `select "first", set_config('synchronous_commit', 'off', true) from`
const PLAIN_SELECT = 'select "first" from "appended_head"'

const t = useTestApp({ env: { DATABASE_POOL_SIZE: '10' } })

const headSize = async () =>
  Number(
    (await t.deps.db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow()).size,
  )

/**
 * APPENDS concurrent audited transactions through `deps`: the appends (the statement that updates
 * the head, and with it takes its lock) and the flushes, and each transaction's synchronous_commit
 * after its append.
 */
async function appendThrough(deps: Deps, mode: string) {
  const settings: string[] = []
  const statements = await statementsOf(/^with "appended_head"|switchboard\.flush/, () =>
    Promise.all(
      Array.from({ length: APPENDS }, (_, i) =>
        deps.db.transaction().execute(async (tx) => {
          await recordAudit(
            tx,
            t.clock,
            { ip: '198.51.100.8', userAgent: 'test' },
            {
              action: 'test.commit',
              actor: null,
              metadata: { mode, count: i },
            },
          )
          // The setting as the append left it: a probe the append-order check lets through.
          const { rows } = await sql<{ s: string }>`${sql.raw(AFTER_APPEND_PROBE)} select
            current_setting('synchronous_commit') as s`.execute(tx)
          settings.push(rows[0]!.s)
        }),
      ),
    ),
  )
  const texts = statements.map((statement) => statement.text)
  return {
    settings,
    appends: texts.filter((text) => text.startsWith('with "appended_head"')),
    flushes: texts.filter((text) => text === FLUSH).length,
  }
}

describe('POSTGRES_AUDIT_COMMIT', () => {
  it('grouped and plain both append every event as the next leaf; only grouped flushes after', async () => {
    const plain = await startPeerInstance(t, {
      DATABASE_POOL_SIZE: '10',
      POSTGRES_AUDIT_COMMIT: 'plain',
    })
    try {
      expect(t.config.database.auditCommit).toBe('grouped')
      expect(plain.deps.config.database.auditCommit).toBe('plain')
      const before = await headSize()

      const grouped = await appendThrough(t.deps, 'grouped')
      expect(grouped.settings).toEqual(Array(APPENDS).fill('off'))
      expect(grouped.appends).toHaveLength(APPENDS)
      expect(grouped.appends.every((text) => text.includes(GROUPED_SELECT))).toBe(true)
      expect(grouped.flushes).toBe(APPENDS)

      const asBefore = await appendThrough(plain.deps, 'plain')
      expect(asBefore.settings).toEqual(Array(APPENDS).fill('on'))
      expect(asBefore.appends).toHaveLength(APPENDS)
      expect(asBefore.appends.every((text) => text.endsWith(PLAIN_SELECT))).toBe(true)
      expect(asBefore.flushes).toBe(0)

      expect(await headSize()).toBe(before + 2 * APPENDS)
      const events = await t.deps.db
        .selectFrom('audit_events')
        .select(['leaf_index', 'metadata'])
        .where('action', '=', 'test.commit')
        .orderBy('leaf_index')
        .execute()
      expect(events.map((event) => Number(event.leaf_index))).toEqual(
        Array.from({ length: 2 * APPENDS }, (_, i) => before + i),
      )
      const modes = events.map((event) => (JSON.parse(event.metadata) as { mode: string }).mode)
      expect(modes).toEqual([...Array(APPENDS).fill('grouped'), ...Array(APPENDS).fill('plain')])
      // The checkpoint recomputes the tree from the leaves' events and refuses a head that differs.
      expect((await makeCheckpoint(t.deps))!.treeSize).toBe(before + 2 * APPENDS)
      expect(await checkDatabase(t.deps)).toMatchObject({
        ok: true,
        problem: null,
        size: before + 2 * APPENDS,
      })
    } finally {
      await plain.close()
    }
  }, 60_000)
})
