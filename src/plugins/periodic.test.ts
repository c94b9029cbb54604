/**
 * Periodic work tied to a real Fastify application: nothing runs before it is ready, a first pass
 * at ready when asked, and closing the application aborts the pass under way and waits for it.
 */
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { runWhileOpen } from './periodic.js'

const HOUR_MS = 3_600_000

describe('runWhileOpen', () => {
  it('runs a first pass at ready, and close waits for it with its signal aborted', async () => {
    const app = Fastify()
    const signals: AbortSignal[] = []
    let finish: () => void = () => undefined
    let closed = false
    runWhileOpen(app, {
      everyMs: HOUR_MS,
      atReady: true,
      pass: (signal) =>
        new Promise<void>((resolve) => {
          signals.push(signal)
          finish = resolve
        }),
      onError: () => undefined,
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(signals).toHaveLength(0)
    await app.ready()
    await expect.poll(() => signals.length).toBe(1)
    const closing = app.close().then(() => {
      closed = true
    })
    await expect.poll(() => signals[0]!.aborted).toBe(true)
    expect(closed).toBe(false)
    finish()
    await closing
    expect(closed).toBe(true)
  })

  it('without atReady, waits a whole interval before its first pass', async () => {
    const app = Fastify()
    let passes = 0
    runWhileOpen(app, {
      everyMs: 50,
      atReady: false,
      pass: async () => void passes++,
      onError: () => undefined,
    })
    await app.ready()
    expect(passes).toBe(0)
    await expect.poll(() => passes).toBeGreaterThan(0)
    await app.close()
  })
})
