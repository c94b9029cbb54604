/**
 * Long work over the database, given to a stream, a turn of the event loop at a time. Every SQLite
 * read is synchronous: a generator of its rows answered to a reader that keeps up would otherwise
 * run as one stretch of callbacks, every other request waiting until it ends
 * (docs/decisions/0081-the-audit-check-gives-turns.md).
 */
import { setImmediate as nextTurn } from 'node:timers/promises'

/** The chunks of `source`, a turn of the event loop given after each. */
export async function* withTurns<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  for await (const chunk of source) {
    yield chunk
    await nextTurn()
  }
}
