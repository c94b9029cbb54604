/**
 * Audit appends that fail after taking the tree head, among concurrent ones from two instances on
 * one PostgreSQL database: each append commits without holding the head through the WAL flush
 * (db/flush-after-commit.ts). 200 concurrent audited changes, every fifth failing after its
 * append, leave exactly the 160 others' events, with consecutive leaves and an intact tree.
 */
import { describe, expect, it } from 'vitest'
import { checkDatabase } from '../src/modules/audit/integrity.js'
import { recordAudit } from '../src/modules/audit/service.js'
import { startPeerInstance, useTestApp } from './helpers/app.js'

const t = useTestApp({ env: { DATABASE_POOL_SIZE: '20' } })

describe('failing appends among concurrent ones', () => {
  it('appends that fail after taking the head lose nothing of the others, from two instances', async () => {
    const peer = await startPeerInstance(t, { DATABASE_POOL_SIZE: '20' })
    try {
      const size = async () =>
        Number(
          (await t.deps.db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow())
            .size,
        )
      const before = await size()
      const ctx = { ip: '198.51.100.7', userAgent: 'test' }
      // Every fifth change fails after its event is appended: its transaction rolls back.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? t.deps : peer.deps).db.transaction().execute(async (tx) => {
            await recordAudit(tx, t.clock, ctx, {
              action: 'test.change',
              actor: null,
              metadata: { count: i },
            })
            if (i % 5 === 4) throw new Error(`change ${i} fails`)
          }),
        ),
      )
      const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []))
      expect(failed).toEqual(Array.from({ length: 40 }, (_, k) => k * 5 + 4))
      expect(await size()).toBe(before + 160)
      const events = await t.deps.db
        .selectFrom('audit_events')
        .select(['leaf_index', 'metadata'])
        .where('action', '=', 'test.change')
        .orderBy('leaf_index')
        .execute()
      expect(events.map((e) => Number(e.leaf_index))).toEqual(
        Array.from({ length: 160 }, (_, i) => before + i),
      )
      const written = events.map((e) => (JSON.parse(e.metadata) as { count: number }).count)
      expect(written.sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 5 !== 4),
      )
      expect(await checkDatabase(t.deps)).toMatchObject({ ok: true, problem: null })
    } finally {
      await peer.close()
    }
  }, 120_000)
})
