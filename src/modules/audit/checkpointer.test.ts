/**
 * "signed checkpoints … made at least every second while events arrive or every 256
 * events". The checkpointer (checkpoints.ts startCheckpointer) runs here on its own, over the
 * service's dependencies without an app, so no other checkpointer makes checkpoints beside it: 256
 * events or more are covered at its next look (a tenth of a second), fewer wait until a second has
 * passed since the last checkpoint, and nothing is signed while nothing arrives.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { standaloneDeps, type StandaloneDeps } from '../../../test/helpers/standalone-deps.js'
import type { Deps } from '../../deps.js'
import {
  CHECKPOINT_EVENTS,
  CHECKPOINT_INTERVAL_MS,
  checkpointDue,
  startCheckpointer,
  type Checkpointer,
} from './checkpoints.js'
import { insertAuditEvents, type AuditEvent } from './repo.js'
import { findLatestCheckpoint, readTreeSize } from './tree.repo.js'

let standalone: StandaloneDeps
let deps: Deps
let checkpointer: Checkpointer
const problems: Error[] = []

beforeAll(async () => {
  standalone = await standaloneDeps()
  deps = standalone.deps
  checkpointer = startCheckpointer(deps, (error) => problems.push(error))
})

afterAll(async () => {
  await checkpointer?.stop()
  await standalone?.close()
})

function events(count: number): AuditEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    at: new Date().toISOString(),
    actorId: null,
    actorEmail: null,
    action: 'test.checkpointer',
    targetType: 'thing',
    targetId: `thing-${i}`,
    ip: '192.0.2.1',
    userAgent: null,
    subjectUserId: null,
    metadata: { i },
  }))
}

const coveredSize = async () => (await findLatestCheckpoint(deps.db))?.treeSize ?? 0

/**
 * Milliseconds until the latest checkpoint covers `size` leaves (polled every 10 ms), or Infinity
 * after `withinMs`.
 */
async function msUntilCovered(size: number, withinMs: number): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < withinMs) {
    if ((await coveredSize()) >= size) return performance.now() - started
    await sleep(10)
  }
  return Infinity
}

/**
 * Writes `count` events in one transaction right after a checkpoint was made (256 events' worth, so
 * at once).
 */
async function writeAfterCheckpoint(count: number): Promise<number> {
  await insertAuditEvents(deps.db, events(CHECKPOINT_EVENTS))
  expect(await msUntilCovered(await readTreeSize(deps.db), 5000)).toBeLessThan(Infinity)
  await insertAuditEvents(deps.db, events(count))
  return readTreeSize(deps.db)
}

describe('the audit checkpointer', () => {
  it('is due at 256 events, or after a second with fewer, and never for none', () => {
    expect(CHECKPOINT_EVENTS).toBe(256)
    expect(checkpointDue(256, 0)).toBe(true)
    expect(checkpointDue(255, 0)).toBe(false)
    expect(checkpointDue(255, CHECKPOINT_INTERVAL_MS - 1)).toBe(false)
    expect(checkpointDue(1, CHECKPOINT_INTERVAL_MS)).toBe(true)
    expect(checkpointDue(0, 60 * CHECKPOINT_INTERVAL_MS)).toBe(false)
  })

  it('covers 300 new events at its next look, well before the second is up', async () => {
    const size = await writeAfterCheckpoint(300)
    // The next look is at most a tenth of a second away; the second-long path would take ≈ 1,000
    // ms.
    expect(await msUntilCovered(size, 5000)).toBeLessThan(CHECKPOINT_INTERVAL_MS * 0.7)
    expect(problems).toEqual([])
  })

  it('lets a few events wait for the second, then covers them', async () => {
    const size = await writeAfterCheckpoint(5)
    await sleep(CHECKPOINT_INTERVAL_MS * 0.4)
    // Lateness on a loaded machine only makes this later, never sooner.
    expect(await coveredSize()).toBeLessThan(size)
    expect(await msUntilCovered(size, 5000)).toBeLessThan(Infinity)
    expect(problems).toEqual([])
  })

  it('signs nothing new while nothing arrives', async () => {
    const size = await readTreeSize(deps.db)
    expect(await msUntilCovered(size, 5000)).toBeLessThan(Infinity)
    const count = async () =>
      Number(
        (
          await deps.db
            .selectFrom('audit_checkpoints')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    await sleep(CHECKPOINT_INTERVAL_MS * 1.5)
    expect(await count()).toBe(before)
  })
})
