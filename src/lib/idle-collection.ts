/**
 * One memory-reducing garbage collection when the server goes quiet after work that left garbage.
 *
 * V8 starts a full collection only as the heap grows, so an idle process keeps whatever its last
 * requests left: the first request of a route compiles its validator and serializer, a sign-in
 * loads the password hashing, and what they allocate on the way (≈ 6 MiB after the first
 * sign-ins) stays resident for as long as the service then stays idle (measured over 25 s,
 * docs/decisions/0059-idle-memory.md). Here, once no request has started for a whole `quietMs`
 * period and the heap's committed size has grown by `minGrowthBytes` since the last such
 * collection, `collect` runs — at most once per `minIntervalMs`, so a quiet period that comes too
 * soon waits for the interval to pass; with `collectAtFirstQuiet`, also at the first quiet period
 * after the watch starts. A busy server is never quiet for that long and is left to V8.
 *
 * Per request this costs a counter increment; the timer runs only while requests arrive, and
 * while a collection waits for its interval.
 */
import type { Server } from 'node:http'

export interface IdleCollectionOptions {
  /** How long no request may start before the server counts as quiet. */
  quietMs: number
  /**
   * Growth of the heap's committed size since the last collection that makes one worth its pause.
   * Committed, not used: V8's own collections lower the bytes in use but keep the pages.
   */
  minGrowthBytes: number
  /** Least time between two collections. */
  minIntervalMs: number
  /**
   * The first quiet period collects whatever the growth, outside `minIntervalMs`: the work after
   * listening (the start-up checks, the first requests' compiled validators) leaves less than
   * `minGrowthBytes` of garbage, which an idle process would keep.
   */
  collectAtFirstQuiet?: boolean
  /** Bytes the heap has committed now. */
  heapSize: () => number
  /** The collection itself. */
  collect: () => void
  now?: () => number
}

/** Watches `server`'s requests; returns the function that stops watching. */
export function collectWhenIdle(server: Server, options: IdleCollectionOptions): () => void {
  const now = options.now ?? Date.now
  let started = 0
  let seen = 0
  let timer: NodeJS.Timeout | null = null
  let baseline = options.heapSize()
  let lastCollection = -Infinity
  let firstQuiet = options.collectAtFirstQuiet === true

  const tick = () => {
    if (started !== seen) {
      seen = started
      return
    }
    if (firstQuiet) {
      // Not counted against the interval: the work that follows the start (the first sign-ins)
      // grows the heap again soon after.
      stopTimer()
      firstQuiet = false
      options.collect()
      baseline = options.heapSize()
      return
    }
    const grown = options.heapSize() - baseline >= options.minGrowthBytes
    // Quiet and grown but too soon after the last collection: the timer goes on, and the
    // collection runs once the interval has passed, unless requests arrive first.
    if (grown && now() - lastCollection < options.minIntervalMs) return
    stopTimer()
    if (!grown) return
    options.collect()
    lastCollection = now()
    baseline = options.heapSize()
  }
  const stopTimer = () => {
    if (timer !== null) clearInterval(timer)
    timer = null
  }
  const onRequest = () => {
    started++
    if (timer === null) {
      timer = setInterval(tick, options.quietMs)
      timer.unref()
    }
  }
  server.on('request', onRequest)
  return () => {
    server.off('request', onRequest)
    stopTimer()
  }
}
