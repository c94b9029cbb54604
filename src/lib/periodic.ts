/**
 * Work the service repeats on a timer — a purge, a poll, a check. One pass at a time: a tick that
 * finds the previous pass still running is skipped, so a slow pass never has a second one beside
 * it. Stopping aborts the pass's signal — a pass of several steps stops between two of them — and
 * waits for it to end, so that no pass outlives the pools it reads through. The timer never keeps
 * the process alive.
 */
export interface Periodic {
  /** Starts a pass now, unless one is under way or the work has stopped. */
  runNow(): void
  /** Stops the timer and aborts the signal; resolves once the pass under way, if any, has ended. */
  stop(): Promise<void>
}

/**
 * Runs `pass` every `everyMs` (the first after one interval; `runNow` for one sooner). A pass that
 * fails hands its error to `onError`, and the next tick runs as usual.
 */
export function startPeriodic(
  everyMs: number,
  pass: (signal: AbortSignal) => Promise<unknown>,
  onError: (error: Error) => void,
): Periodic {
  const stopping = new AbortController()
  let running: Promise<void> | null = null
  const runNow = () => {
    if (stopping.signal.aborted) return
    running ??= Promise.resolve(stopping.signal)
      .then(pass)
      .then(
        () => undefined,
        (error: unknown) => onError(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        running = null
      })
  }
  const timer = setInterval(runNow, everyMs)
  timer.unref()
  return {
    runNow,
    async stop() {
      stopping.abort()
      clearInterval(timer)
      await running
    },
  }
}
