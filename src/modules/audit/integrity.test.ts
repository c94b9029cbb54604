/**
 * The database check on a live log: events appended while it runs are leaves, not events outside
 * the tree; the hourly check starts from the prefix the last check verified and checks what came
 * after it, leaf by leaf (docs/decisions/0054-periodic-audit-check-from-a-verified-prefix.md).
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { turnsDuring } from '../../../test/helpers/event-loop.js'
import { sqlitePlanOf, statementsOf } from '../../../test/helpers/query-plans.js'
import { makeCheckpoint, materializeTree } from './checkpoints.js'
import { BATCH, checkDatabase, checkDatabaseFully, SPAN_PART } from './integrity.js'
import { checkSince } from './integrity-prefix.js'
import { insertAuditEvents, type AuditEvent } from './repo.js'
import { countEventsOutsideTree, readMonitor, readTreeSize } from './tree.repo.js'

const t = useTestApp()

const events = (n: number, action = 'test.event'): AuditEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    at: new Date().toISOString(),
    actorId: null,
    actorEmail: null,
    action,
    targetType: null,
    targetId: null,
    ip: null,
    userAgent: null,
    subjectUserId: null,
    metadata: { n: i },
  }))

describe('the database check', () => {
  // First: SQLite prepares a statement's text once per file, and the plan is read from it.
  it('on an intact log, finds no event outside the tree from the leaf index alone', async () => {
    // The service's own check at start runs beside the first requests and reads with the
    // statement caught here: it has recorded its result first.
    await expect
      .poll(async () => (await readMonitor(t.deps.db)).checkedAt, { timeout: 10_000 })
      .not.toBeNull()
    await insertAuditEvents(t.deps.db, events(3))
    const size = await readTreeSize(t.deps.db)
    let outside: Awaited<ReturnType<typeof countEventsOutsideTree>> | undefined
    const statements = await statementsOf(/from "audit_events"/, async () => {
      outside = await countEventsOutsideTree(t.deps.db, size)
    })
    expect(outside).toEqual({ count: 0, firstId: null })
    // The first such event by time is looked for only when there is one: ordered by time, that
    // read walks the time index, every event of an intact log.
    expect(statements).toHaveLength(1)
    expect(statements[0]!.text).not.toMatch(/order by/i)
    if (t.database.engine === 'sqlite') {
      const plan = await sqlitePlanOf(t, statements[0]!)
      expect(plan.join('\n')).not.toMatch(/SCAN audit_events/)
      expect(plan.join('\n')).toMatch(/audit_events_leaf_idx/)
    }
  })

  it('gives the event loop a turn between spans and their parts, in the whole check and in the hourly one', async () => {
    // Every SQLite read is synchronous: without turns given back the whole check would be one
    // stretch of promise callbacks, and no other request answered until it ended.
    for (let i = 0; i < 3 * BATCH; i += 512) await insertAuditEvents(t.deps.db, events(512))
    await materializeTree(t.deps.db)
    await makeCheckpoint(t.deps)
    let whole: Awaited<ReturnType<typeof checkDatabaseFully>> | undefined
    // A turn after each part of each span: a request waits for at most a part.
    expect(
      await turnsDuring(async () => (whole = await checkDatabaseFully(t.deps))),
    ).toBeGreaterThanOrEqual(3 * (BATCH / SPAN_PART))
    expect(whole?.result.ok).toBe(true)
    expect(whole?.prefix?.digests).toHaveLength(3)
    expect(await turnsDuring(() => checkSince(t.deps, whole!.prefix))).toBeGreaterThanOrEqual(3)
  })

  it('counts an event appended since it read the head as a leaf, one beyond the head as outside', async () => {
    await insertAuditEvents(t.deps.db, events(3))
    const size = await readTreeSize(t.deps.db)
    await insertAuditEvents(t.deps.db, events(2))
    expect(await countEventsOutsideTree(t.deps.db, size)).toEqual({ count: 0, firstId: null })

    const head = await readTreeSize(t.deps.db)
    await t.deps.db
      .insertInto('audit_events')
      .values({ ...(await lastEvent()), id: 'beyond-the-head', leaf_index: head + 5 })
      .execute()
    try {
      expect(await countEventsOutsideTree(t.deps.db, size)).toEqual({
        count: 1,
        firstId: 'beyond-the-head',
      })
    } finally {
      await t.deps.db.deleteFrom('audit_events').where('id', '=', 'beyond-the-head').execute()
    }
  })

  it('hourly: from the verified prefix, the leaves after it one by one, a change among them found', async () => {
    for (let i = 0; i < BATCH + 100; i += 500)
      await insertAuditEvents(t.deps.db, events(Math.min(500, BATCH + 100 - i)))
    await materializeTree(t.deps.db)
    await makeCheckpoint(t.deps)
    // The prefix: the whole spans of the log (the other tests' events included).
    const prefixSize = Math.floor((await readTreeSize(t.deps.db)) / BATCH) * BATCH
    const whole = await checkDatabaseFully(t.deps)
    expect(whole.result).toMatchObject({ ok: true, problem: null })
    expect(whole.prefix?.frontier.size).toBe(prefixSize)
    // `audit verify --database` checks the same without keeping a prefix.
    expect(await checkDatabase(t.deps)).toEqual(whole.result)

    await insertAuditEvents(t.deps.db, events(20, 'test.later'))
    await materializeTree(t.deps.db)
    await makeCheckpoint(t.deps)
    const size = await readTreeSize(t.deps.db)
    const hourly = await checkSince(t.deps, whole.prefix)
    expect(hourly).toMatchObject({ from: prefixSize, result: { ok: true, problem: null, size } })

    // A later event edited: found by the leaves after the prefix, without the whole check.
    const edited = size - 3
    await t.deps.db
      .updateTable('audit_events')
      .set({ action: 'test.edited' })
      .where('leaf_index', '=', edited)
      .execute()
    const found = await checkSince(t.deps, hourly.prefix)
    expect(found).toMatchObject({
      from: prefixSize,
      result: { ok: false, problem: { index: edited, kind: 'edited' } },
    })
    expect(found.result.problem).toEqual((await checkDatabaseFully(t.deps)).result.problem)
    expect((await checkDatabase(t.deps)).problem).toEqual(found.result.problem)
    await t.deps.db
      .updateTable('audit_events')
      .set({ action: 'test.later' })
      .where('leaf_index', '=', edited)
      .execute()
    expect((await checkSince(t.deps, hourly.prefix)).result).toMatchObject({ ok: true })
  })
})

async function lastEvent() {
  return t.deps.db
    .selectFrom('audit_events')
    .selectAll()
    .orderBy('leaf_index', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow()
}
