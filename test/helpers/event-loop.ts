/**
 * Turns of the event loop while `work` runs: one immediate counted per turn. Work that never gives
 * a turn back (on SQLite every read is synchronous, so its `await`s resolve at once) counts none:
 * no timer, socket or other request is served until it ends.
 */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0
  let running = true
  const count = () => {
    if (!running) return
    turns++
    setImmediate(count)
  }
  setImmediate(count)
  try {
    await work()
  } finally {
    running = false
  }
  return turns
}
