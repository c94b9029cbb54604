import { describe, expect, it } from 'vitest'
import { createStepwiseWork } from './stepwise-work.js'

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await nextTurn()
}

/** A step that reports more work `left` times, recording the turn (of 20 counted) each ran in. */
function countingSteps(left: number) {
  const ran: number[] = []
  let turn = 0
  const count = () => {
    if (++turn < 20) setImmediate(count)
  }
  setImmediate(count)
  const step = async () => {
    ran.push(turn)
    return ran.length <= left
  }
  return { ran, step }
}

describe('upkeep in steps between requests', () => {
  it('runs nothing until asked, then one step per turn until a step reports nothing left', async () => {
    const steps = countingSteps(3)
    const work = createStepwiseWork(steps.step, () => undefined)
    await turns(3)
    expect(steps.ran).toEqual([])
    work.request()
    expect(steps.ran).toEqual([])
    await turns(10)
    expect(steps.ran).toHaveLength(4)
    // Each step on a turn of its own.
    expect(new Set(steps.ran).size).toBe(4)
  })

  it('lets a run under way go on when asked again, and starts a new run once it ended', async () => {
    let calls = 0
    const work = createStepwiseWork(
      async () => ++calls < 3,
      () => undefined,
    )
    work.request()
    work.request()
    await turns(10)
    expect(calls).toBe(3)
    work.request()
    await turns(5)
    expect(calls).toBe(4)
  })

  it('ends a run at a failing step, reports it, and runs again when asked', async () => {
    const errors: unknown[] = []
    let calls = 0
    const work = createStepwiseWork(
      async () => {
        calls++
        if (calls === 2) throw new Error('busy')
        return true
      },
      (error) => errors.push(error),
    )
    work.request()
    await turns(10)
    expect(calls).toBe(2)
    expect(errors).toEqual([new Error('busy')])
    work.request()
    await turns(3)
    expect(calls).toBeGreaterThan(2)
    await work.close()
  })

  it('starts no step after closing, and waits for the one under way', async () => {
    let finished = 0
    let release = () => undefined as void
    const work = createStepwiseWork(
      async () => {
        await new Promise<void>((resolve) => (release = resolve))
        finished++
        return true
      },
      () => undefined,
    )
    work.request()
    await turns(2)
    let closed = false
    const closing = work.close().then(() => (closed = true))
    await turns(2)
    expect(closed).toBe(false)
    release()
    await closing
    expect(finished).toBe(1)
    work.request()
    await turns(5)
    expect(finished).toBe(1)
  })
})
