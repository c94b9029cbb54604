/**
 * Long work over the database, a turn of the event loop at a time. Every SQLite read is
 * synchronous, so work that only awaits its reads (a check of the audit log, a purge, an export
 * streamed to a reader that keeps up) would otherwise run as one stretch of callbacks, every other
 * request waiting until it ends (docs/decisions/0081-the-audit-check-gives-turns.md).
 */
import { setImmediate } from 'node:timers/promises'

/** Resolves on the event loop's next turn, after the waiting I/O: other requests go first. */
export const nextTurn = (): Promise<void> => setImmediate()

/** The chunks of `source`, a turn of the event loop given after each. */
export async function* withTurns<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  for await (const chunk of source) {
    yield chunk
    await nextTurn()
  }
}
