/**
 * Upkeep done in short steps between requests: one step per turn of the event loop, each after the
 * turn's I/O, so that a request that arrives meanwhile waits for one step at most, never for the
 * whole. A step reports whether more is left; the run ends when none is. Asking while a run is
 * under way lets that run go on (a step looks at the state as it is then); asking after it ended
 * starts a new one. A step that fails ends the run, and is reported; the next request starts
 * afresh.
 */
import { nextTurn } from './event-loop-turns.js'

export interface StepwiseWork {
  /** Starts a run unless one is under way. */
  request(): void
  /** No step starts after this; resolves once the one under way (if any) has finished. */
  close(): Promise<void>
}

export function createStepwiseWork(
  step: () => Promise<boolean>,
  onError: (error: unknown) => void,
): StepwiseWork {
  let running: Promise<void> | null = null
  let closed = false

  async function run(): Promise<void> {
    try {
      do await nextTurn()
      while (!closed && (await step()))
    } catch (error) {
      onError(error)
    } finally {
      running = null
    }
  }

  return {
    request() {
      if (closed || running !== null) return
      running = run()
    },
    async close() {
      closed = true
      await running
    },
  }
}
