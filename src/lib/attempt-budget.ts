/**
 * Attempt budgets: fixed-window counters of *failed* attempts (login failures, wrong second-factor
 * codes), checked before an attempt and charged only when it fails — unlike a request rate limit,
 * which charges every request. Counters live in Redis when configured, so every instance sees one
 * budget; otherwise in process memory.
 */
import type { Redis } from 'ioredis'
import { AppError } from '../errors.js'
import { sha256Hex } from './crypto.js'
import type { Clock } from './time.js'

export interface Budget {
  name: string
  limit: number
  windowSeconds: number
}

export interface CounterState {
  count: number
  /** Milliseconds until the window closes and the counter starts again from zero. */
  resetInMs: number
}

export interface CounterStore {
  increment(key: string, windowMs: number): Promise<CounterState>
  read(key: string): Promise<CounterState>
}

export function createMemoryCounterStore(clock: Clock, maxKeys = 100_000): CounterStore {
  const counters = new Map<string, { count: number; resetAt: number }>()
  const live = (key: string, now: number) => {
    const entry = counters.get(key)
    if (entry !== undefined && entry.resetAt <= now) {
      counters.delete(key)
      return undefined
    }
    return entry
  }
  const sweep = (now: number) => {
    for (const [key, entry] of counters) if (entry.resetAt <= now) counters.delete(key)
    // Still full of live windows: forget the oldest rather than grow without bound under attack.
    for (const key of counters.keys()) {
      if (counters.size < maxKeys) break
      counters.delete(key)
    }
  }
  return {
    async increment(key, windowMs) {
      const now = clock.now().getTime()
      let entry = live(key, now)
      if (entry === undefined) {
        if (counters.size >= maxKeys) sweep(now)
        entry = { count: 0, resetAt: now + windowMs }
        counters.set(key, entry)
      }
      entry.count += 1
      return { count: entry.count, resetInMs: entry.resetAt - now }
    },
    async read(key) {
      const now = clock.now().getTime()
      const entry = live(key, now)
      return entry === undefined ? { count: 0, resetInMs: 0 } : { count: entry.count, resetInMs: entry.resetAt - now }
    },
  }
}

// INCR and the first PEXPIRE in one atomic step, so a counter can never be left without expiry.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`

export function createRedisCounterStore(redis: Redis, prefix = 'sb:budget:'): CounterStore {
  return {
    async increment(key, windowMs) {
      const [count, ttl] = (await redis.eval(INCREMENT_SCRIPT, 1, prefix + key, windowMs)) as [number, number]
      return { count, resetInMs: Math.max(ttl, 0) }
    },
    async read(key) {
      const [[, count], [, ttl]] = (await redis.multi().get(prefix + key).pttl(prefix + key).exec()) as [
        [unknown, string | null],
        [unknown, number],
      ]
      return { count: count === null ? 0 : Number(count), resetInMs: Math.max(ttl, 0) }
    },
  }
}

/**
 * Uses the shared store while it answers and the process-local one when it does not: a Redis
 * outage degrades limits to per-instance instead of failing every login. Logs each transition once.
 */
export function createFallbackCounterStore(
  primary: CounterStore,
  fallback: CounterStore,
  log: { warn(msg: string): void; info(msg: string): void },
): CounterStore {
  let degraded = false
  const attempt = async <T>(op: (store: CounterStore) => Promise<T>): Promise<T> => {
    try {
      const result = await op(primary)
      if (degraded) {
        degraded = false
        log.info('shared rate-limit store is reachable again; limits are shared across instances')
      }
      return result
    } catch {
      if (!degraded) {
        degraded = true
        log.warn('shared rate-limit store is unreachable; falling back to per-process limits')
      }
      return op(fallback)
    }
  }
  return {
    increment: (key, windowMs) => attempt((s) => s.increment(key, windowMs)),
    read: (key) => attempt((s) => s.read(key)),
  }
}

export interface BudgetCharge {
  budget: Budget
  /** What the budget is counted per: an email, an IP, an account id, an mfa_token … */
  subject: string
}

export class AttemptBudgets {
  constructor(private readonly store: CounterStore) {}

  // Subjects are hashed so emails and tokens never appear as keys in Redis or memory dumps.
  private key(charge: BudgetCharge): string {
    return `${charge.budget.name}:${sha256Hex(charge.subject)}`
  }

  /** Throws RATE_LIMITED, with the longest wait among them, when any of the budgets is spent. */
  async assertAvailable(charges: BudgetCharge[]): Promise<void> {
    const states = await Promise.all(charges.map((c) => this.store.read(this.key(c))))
    const spent = states.filter((state, i) => state.count >= charges[i]!.budget.limit)
    if (spent.length === 0) return
    const waitMs = Math.max(...spent.map((s) => s.resetInMs))
    throw new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) })
  }

  /** Records one failed attempt against every budget given. */
  async charge(charges: BudgetCharge[]): Promise<void> {
    await Promise.all(charges.map((c) => this.store.increment(this.key(c), c.budget.windowSeconds * 1000)))
  }
}
