/**
 * The window of recent clicks — the last 30 UTC days, today included — that a link's
 * `clicks_30d` and the most-clicked order count, and keeping the links' counts on it
 * (recent-clicks.repo.ts).
 */
import type { Db } from '../../db/schema.js'
import { moveWindowStart } from './recent-clicks.repo.js'

export const RECENT_CLICK_DAYS = 30
const DAY_MS = 24 * 60 * 60 * 1000

/** The first UTC day of the last `days` days, today included. */
export function firstDayOfLast(days: number, now: Date): string {
  return new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10)
}

/** The first day each database's counts are known to start on (this process moved or saw it). */
const knownStarts = new WeakMap<Db, string>()

/**
 * Makes the links' counts cover the window of `now`: once a day per process, the first time the
 * counts are read or clicks are written after midnight (UTC), the day that left is taken off.
 */
export async function keepRecentClicksCurrent(db: Db, now: Date): Promise<void> {
  const firstDay = firstDayOfLast(RECENT_CLICK_DAYS, now)
  if (knownStarts.get(db) === firstDay) return
  await db.transaction().execute((tx) => moveWindowStart(tx, firstDay))
  knownStarts.set(db, firstDay)
}
