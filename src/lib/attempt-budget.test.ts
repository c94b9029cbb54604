import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.js'
import { AttemptBudgets, createFallbackCounterStore, createMemoryCounterStore, type CounterStore } from './attempt-budget.js'

const budget = { name: 'test', limit: 3, windowSeconds: 60 }

function clockAt(start: number) {
  let now = start
  return { clock: { now: () => new Date(now) }, advance: (ms: number) => (now += ms) }
}

describe('attempt budgets (memory)', () => {
  it('allows attempts until the limit of failures, then answers RATE_LIMITED with the wait', async () => {
    const { clock, advance } = clockAt(1_000_000)
    const budgets = new AttemptBudgets(createMemoryCounterStore(clock))
    const charges = [{ budget, subject: 'alice' }]
    for (let i = 0; i < 3; i++) {
      await budgets.assertAvailable(charges)
      await budgets.charge(charges)
    }
    advance(20_000)
    const error = await budgets.assertAvailable(charges).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ reason: 'RATE_LIMITED', status: 429, retryAfter: 40 })
    await budgets.assertAvailable([{ budget, subject: 'bob' }])
    advance(40_000)
    await budgets.assertAvailable(charges)
  })

  it('reports the longest wait among several spent budgets', async () => {
    const { clock, advance } = clockAt(0)
    const budgets = new AttemptBudgets(createMemoryCounterStore(clock))
    const long = { name: 'long', limit: 1, windowSeconds: 900 }
    await budgets.charge([{ budget: long, subject: 'x' }])
    advance(1000)
    await budgets.charge([{ budget, subject: 'x' }, { budget, subject: 'x' }, { budget, subject: 'x' }])
    const error = (await budgets.assertAvailable([{ budget, subject: 'x' }, { budget: long, subject: 'x' }]).catch((e) => e)) as AppError
    expect(error.retryAfter).toBe(899)
  })

  it('stays bounded in memory under a flood of distinct subjects', async () => {
    const { clock } = clockAt(0)
    const store = createMemoryCounterStore(clock, 100)
    for (let i = 0; i < 1000; i++) await store.increment(`k${i}`, 60_000)
    expect((await store.read('k999')).count).toBe(1)
    expect((await store.read('k0')).count).toBe(0)
  })
})

describe('fallback store', () => {
  it('uses the local store while the shared one fails, logging each transition once', async () => {
    const { clock } = clockAt(0)
    let up = false
    const shared = createMemoryCounterStore(clock)
    const flaky: CounterStore = {
      increment: (k, w) => (up ? shared.increment(k, w) : Promise.reject(new Error('ECONNREFUSED'))),
      read: (k) => (up ? shared.read(k) : Promise.reject(new Error('ECONNREFUSED'))),
    }
    const messages: string[] = []
    const store = createFallbackCounterStore(flaky, createMemoryCounterStore(clock), {
      warn: (m) => messages.push(`warn ${m}`),
      info: (m) => messages.push(`info ${m}`),
    })
    expect((await store.increment('a', 1000)).count).toBe(1)
    expect((await store.increment('a', 1000)).count).toBe(2)
    up = true
    expect((await store.increment('a', 1000)).count).toBe(1)
    expect(messages).toHaveLength(2)
    expect(messages[0]).toMatch(/^warn .*unreachable/)
    expect(messages[1]).toMatch(/^info .*reachable again/)
  })
})
