import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.js'
import {
  AttemptBudgets,
  createFallbackCounterStore,
  createMemoryCounterStore,
  type CounterStore,
} from './attempt-budget.js'
import { sha256Hex } from './crypto.js'

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
    await budgets.charge([
      { budget, subject: 'x' },
      { budget, subject: 'x' },
      { budget, subject: 'x' },
    ])
    const error = (await budgets
      .assertAvailable([
        { budget, subject: 'x' },
        { budget: long, subject: 'x' },
      ])
      .catch((e) => e)) as AppError
    expect(error.retryAfter).toBe(899)
  })

  it('a flood of fresh keys does not evict the live counters of other subjects', async () => {
    const { clock } = clockAt(0)
    const store = createMemoryCounterStore(clock, 100)
    const budgets = new AttemptBudgets(store)
    const victim = [{ budget, subject: 'victim' }]
    await budgets.charge(victim)
    await budgets.charge(victim)
    await budgets.charge(victim)
    // An attacker floods the store with 10,000 fresh subjects (100 times its capacity).
    for (let i = 0; i < 10_000; i++) await store.increment(`flood${i}`, 60_000)
    // The victim's spent budget is still spent …
    await expect(budgets.assertAvailable(victim)).rejects.toMatchObject({ reason: 'RATE_LIMITED' })
    // … and new subjects are still counted (in shared overflow counters: stricter, never looser).
    expect((await store.increment('late-comer', 60_000)).count).toBeGreaterThanOrEqual(1)
    expect((await store.read('late-comer')).count).toBeGreaterThanOrEqual(1)
  })

  it('reserves atomically: of 50 concurrent attempts at most the limit get through', async () => {
    const { clock } = clockAt(0)
    const budgets = new AttemptBudgets(createMemoryCounterStore(clock))
    const charges = [{ budget, subject: 'erin' }]
    let evaluated = 0
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        budgets.attempt(charges, async () => {
          evaluated++
          await new Promise((resolve) => setTimeout(resolve, 5))
          return null
        }),
      ),
    )
    expect(evaluated).toBe(3)
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(47)
  })

  it('gives a successful attempt back, and a refused narrow budget never touches the wider one', async () => {
    const { clock } = clockAt(0)
    const store = createMemoryCounterStore(clock)
    const budgets = new AttemptBudgets(store)
    const wide = { name: 'wide', limit: 5, windowSeconds: 60 }
    const charges = [
      { budget, subject: 'pair' },
      { budget: wide, subject: 'email' },
    ]
    expect(await budgets.attempt(charges, async () => 'ok')).toBe('ok')
    for (let i = 0; i < 10; i++)
      await budgets.attempt(charges, async () => null).catch(() => undefined)
    // Three failures spent the narrow budget; the seven refused attempts left the wide one alone.
    await expect(
      budgets.assertAvailable([{ budget: wide, subject: 'email' }]),
    ).resolves.toBeUndefined()
    expect((await store.read(`wide:${sha256Hex('email')}`)).count).toBe(3)
  })
})

describe('fallback store', () => {
  it('uses the local store while the shared one fails, logging each transition once', async () => {
    const { clock } = clockAt(0)
    let up = false
    const shared = createMemoryCounterStore(clock)
    const flaky: CounterStore = {
      increment: (k, w) =>
        up ? shared.increment(k, w) : Promise.reject(new Error('ECONNREFUSED')),
      read: (k) => (up ? shared.read(k) : Promise.reject(new Error('ECONNREFUSED'))),
      reserve: (e) => (up ? shared.reserve(e) : Promise.reject(new Error('ECONNREFUSED'))),
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
