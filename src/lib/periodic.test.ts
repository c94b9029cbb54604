/**
 * Periodic work on Vitest's fake timers: a pass per interval, never two at once, a failure handed
 * on without stopping the work, and a stop that aborts the pass's signal and waits for it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startPeriodic, type Periodic } from './periodic.js'

const EVERY_MS = 100

interface HeldPass {
  signal: AbortSignal
  finish: () => void
  fail: (error: unknown) => void
}

/** Every held pass of the test, ended after it if the test left it running. */
let held: HeldPass[] = []

/** A pass the test ends when it wants: each call is recorded with its signal. */
function heldPasses() {
  const calls: HeldPass[] = []
  const pass = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const call = { signal, finish: resolve, fail: reject }
      calls.push(call)
      held.push(call)
    })
  return { calls, pass }
}

let periodic: Periodic | undefined
beforeEach(() => {
  held = []
  vi.useFakeTimers()
})
afterEach(async () => {
  const stopping = periodic?.stop()
  periodic = undefined
  for (const call of held) call.finish()
  vi.useRealTimers()
  await stopping
})

describe('startPeriodic', () => {
  it('runs a pass each interval, the first one interval after the start', async () => {
    let passes = 0
    periodic = startPeriodic(
      EVERY_MS,
      async () => void passes++,
      () => undefined,
    )
    await vi.advanceTimersByTimeAsync(EVERY_MS - 1)
    expect(passes).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(passes).toBe(1)
    await vi.advanceTimersByTimeAsync(EVERY_MS * 3)
    expect(passes).toBe(4)
  })

  it('skips the ticks that find a pass still running, and runNow starts one at once', async () => {
    const { calls, pass } = heldPasses()
    periodic = startPeriodic(EVERY_MS, pass, () => undefined)
    periodic.runNow()
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(EVERY_MS * 5)
    periodic.runNow()
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toHaveLength(1)
    calls[0]!.finish()
    await vi.advanceTimersByTimeAsync(EVERY_MS)
    expect(calls).toHaveLength(2)
  })

  it('hands a failure to onError, as an Error, and runs the next pass as usual', async () => {
    const { calls, pass } = heldPasses()
    const errors: Error[] = []
    periodic = startPeriodic(EVERY_MS, pass, (error) => errors.push(error))
    await vi.advanceTimersByTimeAsync(EVERY_MS)
    calls[0]!.fail(new Error('database away'))
    await vi.advanceTimersByTimeAsync(EVERY_MS)
    calls[1]!.fail('not an Error')
    await vi.advanceTimersByTimeAsync(EVERY_MS)
    expect(errors.map((error) => [error instanceof Error, error.message])).toEqual([
      [true, 'database away'],
      [true, 'not an Error'],
    ])
    expect(calls).toHaveLength(3)
  })

  it('a failure thrown before the pass returns a promise goes to onError too', async () => {
    const errors: string[] = []
    periodic = startPeriodic(
      EVERY_MS,
      () => {
        throw new Error('at once')
      },
      (error) => errors.push(error.message),
    )
    periodic.runNow()
    await vi.advanceTimersByTimeAsync(0)
    expect(errors).toEqual(['at once'])
  })

  it('stop aborts the signal, waits for the pass under way and starts no other', async () => {
    const { calls, pass } = heldPasses()
    const work = startPeriodic(EVERY_MS, pass, () => undefined)
    await vi.advanceTimersByTimeAsync(EVERY_MS)
    expect(calls[0]!.signal.aborted).toBe(false)
    let stopped = false
    const stopping = work.stop().then(() => {
      stopped = true
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(calls[0]!.signal.aborted).toBe(true)
    expect(stopped).toBe(false)
    calls[0]!.finish()
    await stopping
    expect(stopped).toBe(true)
    work.runNow()
    await vi.advanceTimersByTimeAsync(EVERY_MS * 3)
    expect(calls).toHaveLength(1)
  })

  it('stop resolves at once when no pass is under way', async () => {
    const work = startPeriodic(
      EVERY_MS,
      async () => undefined,
      () => undefined,
    )
    await expect(work.stop()).resolves.toBeUndefined()
  })
})
