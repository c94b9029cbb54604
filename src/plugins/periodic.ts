/** Periodic work (lib/periodic.ts) for as long as an application is open. */
import type { FastifyInstance } from 'fastify'
import { startPeriodic, type Periodic } from '../lib/periodic.js'

export interface PeriodicWork {
  everyMs: number
  /** A first pass as soon as the application is ready, instead of one interval later. */
  atReady: boolean
  /** One pass; `signal` aborts when the application closes (lib/periodic.ts). */
  pass: (signal: AbortSignal) => Promise<unknown>
  onError: (error: Error) => void
}

/**
 * Runs `work` from the application's `onReady` until it closes. Closing the application waits for
 * the pass under way, and the service closes its pools only after that (start.ts).
 */
export function runWhileOpen(app: FastifyInstance, work: PeriodicWork): void {
  let periodic: Periodic | undefined
  app.addHook('onReady', async () => {
    periodic = startPeriodic(work.everyMs, work.pass, work.onError)
    if (work.atReady) periodic.runNow()
  })
  app.addHook('onClose', async () => periodic?.stop())
}
