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
export async function* withTurns<T>(source: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  for await (const chunk of source) {
    yield chunk
    await nextTurn()
  }
}

/** How many pieces one part joins: 500 links of an export serialize in a few milliseconds. */
const PIECES_PER_PART = 500

/**
 * `pieces` joined by `separator`, in parts of `size` pieces: with `withTurns`, a large answer (an
 * export of 10,000 links) is serialized and written a part at a time instead of in one stretch
 * that every other request waits for. `pieces` is read lazily, so the work of making each piece
 * falls in its part's turn too.
 */
export function* joinedInParts(
  pieces: Iterable<string>,
  separator: string,
  size = PIECES_PER_PART,
): Generator<string> {
  let part: string[] = []
  let first = true
  for (const piece of pieces) {
    part.push(piece)
    if (part.length < size) continue
    yield (first ? '' : separator) + part.join(separator)
    first = false
    part = []
  }
  if (part.length > 0) yield (first ? '' : separator) + part.join(separator)
}
