/**
 * An import's work in batches: how many values one look-up binds, how many rows one insert
 * writes, how many bookmarks (or collection entries) one transaction takes.
 */
import { timeSlicer } from './reader.js'

/**
 * Values per look-up and rows per insert: one statement each (an insert binds 11 values a row), a
 * few milliseconds of SQLite's synchronous work, between which the event loop may be given back.
 */
export const LOOKUP_BATCH = 200
export const INSERT_BATCH = 50
/** Bookmarks written per transaction. */
export const WRITE_PART = 1000

/** Runs `work` over the items in batches, giving the event loop back between them. */
export async function inBatches<T>(
  items: readonly T[],
  size: number,
  work: (batch: readonly T[]) => Promise<void>,
): Promise<void> {
  const pause = timeSlicer()
  for (let i = 0; i < items.length; i += size) {
    await work(items.slice(i, i + size))
    await pause()
  }
}
