/**
 * Click counts for go-links: every redirect counts one click for its link on the UTC
 * day. The redirect never waits for the count — it only increments a number in this process's
 * memory; the counts are written at most once a second per instance, added to the stored ones
 * (`insert … on conflict do update set clicks = clicks + excluded.clicks`, and the same to the
 * link's count of the last 30 days, so instances add up rather than overwrite), and once more when
 * the app closes (the clean shutdown path), so none is lost. Counts older than 400 days are
 * deleted, at most once an hour.
 */
import type { Clock } from '../../lib/time.js'
import type { Db } from '../../db/schema.js'
import type { Logger } from '../../logger.js'
import { isForeignKeyViolation } from '../../db/client.js'
import { addClicks, type DayClicks } from '../links/recent-clicks.repo.js'
import { keepRecentClicksCurrent } from '../links/recent-clicks.js'

export const FLUSH_INTERVAL_MS = 1000
export const RETENTION_DAYS = 400
const SWEEP_INTERVAL_MS = 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

export interface ClickCounter {
  /** Counts one click for the link now; synchronous and free of I/O. */
  count(linkId: string): void
  /** Writes what was counted so far (one statement); the timer calls it, and close() does. */
  flush(): Promise<void>
  /** Stops the timer and writes the rest. */
  close(): Promise<void>
}

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

export function createClickCounter(deps: { db: Db; clock: Clock; logger: Logger }): ClickCounter {
  // link id → day → clicks not yet written.
  let pending = new Map<string, Map<string, number>>()
  let timer: NodeJS.Timeout | null = null
  let flushing: Promise<void> = Promise.resolve()
  let lastSweep = 0

  const schedule = () => {
    if (timer !== null) return
    timer = setTimeout(() => {
      timer = null
      void flush()
    }, FLUSH_INTERVAL_MS)
    // A pending count must not keep a process alive that is otherwise done; close() writes it.
    timer.unref()
  }

  const rowsOf = (batch: Map<string, Map<string, number>>) =>
    [...batch].flatMap(([link_id, days]) =>
      [...days].map(([day, clicks]) => ({ link_id, day, clicks })),
    )

  const merge = (batch: Map<string, Map<string, number>>) => {
    for (const [linkId, days] of batch) {
      const into = pending.get(linkId) ?? new Map<string, number>()
      for (const [day, clicks] of days) into.set(day, (into.get(day) ?? 0) + clicks)
      pending.set(linkId, into)
    }
  }

  async function write(rows: DayClicks[]): Promise<void> {
    await deps.db.transaction().execute((tx) => addClicks(tx, rows))
  }

  async function writeBatch(batch: Map<string, Map<string, number>>): Promise<void> {
    const rows = rowsOf(batch)
    await keepRecentClicksCurrent(deps.db, deps.clock.now())
    if (rows.length > 0) {
      try {
        await write(rows)
      } catch (error) {
        if (!isForeignKeyViolation(error)) throw error
        // A link was deleted since it was clicked: its clicks go with it, the others are written.
        const ids = [...batch.keys()]
        const alive = new Set(
          (await deps.db.selectFrom('links').select('id').where('id', 'in', ids).execute()).map(
            (row) => row.id,
          ),
        )
        const kept = rows.filter((row) => alive.has(row.link_id))
        if (kept.length > 0) await write(kept)
      }
    }
    const now = deps.clock.now()
    if (now.getTime() - lastSweep >= SWEEP_INTERVAL_MS) {
      lastSweep = now.getTime()
      const oldest = utcDay(new Date(now.getTime() - RETENTION_DAYS * DAY_MS))
      await deps.db.deleteFrom('link_clicks').where('day', '<', oldest).execute()
    }
  }

  function flush(): Promise<void> {
    // One write at a time: a flush waits for the one before it, then takes what is pending.
    flushing = flushing.then(async () => {
      const batch = pending
      if (batch.size === 0) return
      pending = new Map()
      try {
        await writeBatch(batch)
      } catch (error) {
        // The database is away for a moment: the counts stay for the next flush.
        merge(batch)
        schedule()
        deps.logger.warn(
          { error: { message: (error as Error).message } },
          'click counts not written; retrying',
        )
      }
    })
    return flushing
  }

  // The day of the last click and when it ends: a click's day without a date string made per click.
  let today = ''
  let todayEndsMs = 0
  const dayOf = (now: Date) => {
    if (now.getTime() >= todayEndsMs || now.getTime() < todayEndsMs - DAY_MS) {
      today = utcDay(now)
      todayEndsMs = Date.parse(today) + DAY_MS
    }
    return today
  }

  return {
    count(linkId) {
      const day = dayOf(deps.clock.now())
      const days = pending.get(linkId) ?? new Map<string, number>()
      days.set(day, (days.get(day) ?? 0) + 1)
      pending.set(linkId, days)
      schedule()
    },
    flush,
    async close() {
      if (timer !== null) clearTimeout(timer)
      timer = null
      await flush()
    },
  }
}
