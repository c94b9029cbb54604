/**
 * One memory-reducing garbage collection right after work that allocated far more than it keeps:
 * a bookmark import parses, writes and reads back tens of MiB for a file of 20,000 links; the audit
 * log's whole check at start reads every leaf and inner node.
 *
 * V8 keeps the pages its collections free in a pool of its own, resident, for the heap to grow
 * into again, and returns them only in a memory-reducing collection. After an import that pool
 * held 20–25 MiB on top of the heap, so the next request that needs memory outside the heap (a
 * password hash: 19 MiB) took the process past its 150 MiB goal
 * (docs/decisions/0065-memory-after-an-import.md). The collection runs on the next turn of the
 * event loop, once the answer has gone out or the work's last part has ended: its pause (two full
 * collections or more) does not add to that part's own turn. Work that asks on the same turn shares
 * one collection.
 */
export interface HeapRelease {
  /** Called when a large piece of work has answered. */
  afterLargeWork(): void
}

/**
 * The memory-reducing collection `--expose-gc` gives (process-settings.ts), when it is there: the
 * one the start, the quiet collection and `createHeapRelease` run.
 */
export function memoryReducingCollection(): (() => void) | undefined {
  const gc = globalThis.gc
  return gc && (() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }))
}

/** `collect` is the memory-reducing collection; without one (no `--expose-gc`) nothing runs. */
export function createHeapRelease(collect: (() => void) | undefined): HeapRelease {
  if (collect === undefined) return { afterLargeWork: () => undefined }
  let pending = false
  return {
    afterLargeWork() {
      if (pending) return
      pending = true
      setImmediate(() => {
        pending = false
        collect()
      })
    },
  }
}
