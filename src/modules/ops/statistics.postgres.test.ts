/**
 * The planner statistics the service keeps current on PostgreSQL: a table changed by more than
 * autovacuum's threshold is analyzed (at start and every minute), once, by one instance at a time,
 * and not by an instance that is closing.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPeerInstance, startTestApp, type TestContext } from '../../../test/helpers/app.js'
import { createUser } from '../../../test/helpers/factories.js'
import { analyzeTable, findStaleTables } from './statistics.repo.js'
import { refreshStaleStatistics } from './statistics.js'

let t: TestContext
beforeAll(async () => {
  t = await startTestApp()
  // Only the service may analyze the table while the tests watch it.
  await sql`alter table tags set (autovacuum_enabled = false)`.execute(t.deps.db)
})
afterAll(async () => t.close())

/** `count` tags of a new user, written straight to the table. */
async function insertTags(count: number): Promise<void> {
  const { user } = await createUser(t)
  const now = new Date().toISOString()
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    user_id: user.id,
    name: `Tag ${i}`,
    name_key: `tag ${i}`,
    color: null,
    created_at: now,
    updated_at: now,
  }))
  await t.deps.db.insertInto('tags').values(rows).execute()
}

async function lastAnalyzed(table: string): Promise<string | null> {
  const { rows } = await sql<{ at: string | null }>`
    select last_analyze::text as at from pg_stat_user_tables
    where schemaname = current_schema() and relname = ${table}`.execute(t.deps.db)
  return rows[0]?.at ?? null
}

describe('planner statistics on PostgreSQL', () => {
  it('analyzes a table past the threshold once, and nothing while none is', async () => {
    await insertTags(300)
    // The writer's counts reach the statistics views within a second or so.
    await expect
      .poll(async () => (await refreshStaleStatistics(t.deps)).includes('tags'), {
        timeout: 10_000,
      })
      .toBe(true)
    const analyzed = await lastAnalyzed('tags')
    expect(analyzed).not.toBeNull()
    expect(await refreshStaleStatistics(t.deps)).not.toContain('tags')
    expect(await lastAnalyzed('tags')).toBe(analyzed)
  })

  it('leaves a table to the instance already analyzing it', async () => {
    await t.deps.db.transaction().execute(async (holder) => {
      await sql`select pg_advisory_xact_lock(hashtext('switchboard.analyze.tags'))`.execute(holder)
      expect(await t.deps.db.transaction().execute((tx) => analyzeTable(tx, 'tags'))).toBe(false)
    })
    expect(await t.deps.db.transaction().execute((tx) => analyzeTable(tx, 'tags'))).toBe(true)
  })

  it('analyzes nothing once its signal is aborted (the service closing)', async () => {
    await insertTags(300)
    await expect.poll(() => findStaleTables(t.deps.db), { timeout: 10_000 }).toContain('tags')
    const before = await lastAnalyzed('tags')
    expect(await refreshStaleStatistics(t.deps, AbortSignal.abort())).toEqual([])
    expect(await lastAnalyzed('tags')).toBe(before)
    expect(await findStaleTables(t.deps.db)).toContain('tags')
  })

  it('runs when an instance starts', async () => {
    const before = await lastAnalyzed('tags')
    await insertTags(400)
    await expect.poll(() => findStaleTables(t.deps.db), { timeout: 10_000 }).toContain('tags')
    const peer = await startPeerInstance(t)
    try {
      // The pass logs once it has analyzed every stale table, each in a transaction of its own:
      // 'tags' may be analyzed while the pass goes on with the next one.
      await expect
        .poll(() => peer.logs.join('\n'), { timeout: 10_000 })
        .toContain('refreshed planner statistics')
      const line = peer.logs.find((entry) => entry.includes('refreshed planner statistics'))
      expect(JSON.parse(line!).tables).toContain('tags')
      expect(await lastAnalyzed('tags')).not.toBe(before)
    } finally {
      await peer.close()
    }
  })
})
