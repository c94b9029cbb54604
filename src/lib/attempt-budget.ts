/**
 * Attempt budgets: fixed-window counters of *failed* attempts (login failures, wrong second-factor
 * codes). Each attempt is reserved atomically before it is verified and given back when it
 * succeeds, so only failures stay counted — unlike a request rate limit, which charges every
 * request. Counters live in Redis when configured, so every instance sees one
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

/** One counter a reservation draws on: its key, the most it may reach, and its window. */
export interface ReserveEntry {
  key: string
  limit: number
  windowMs: number
}

/**
 * The outcome of reserving one attempt on several counters at once: either every counter was
 * incremented and stayed within its limit (release() gives the attempt back, e.g. on success), or
 * none was left incremented and `resetInMs` says how long the first spent counter stays spent.
 */
export type Reservation =
  { granted: true; release(): Promise<void> } | { granted: false; resetInMs: number }

export interface CounterStore {
  increment(key: string, windowMs: number): Promise<CounterState>
  read(key: string): Promise<CounterState>
  /**
   * Increments the counters in order, atomically as a whole; when one passes its limit the
   * increments made are undone and the reservation is refused. Reserving before the slow check
   * (instead of reading, checking, then charging a failure) is what keeps concurrent attempts
   * within the limit: of N simultaneous attempts at most `limit` get through.
   */
  reserve(entries: ReserveEntry[]): Promise<Reservation>
}

/** Buckets that take the counts of new keys while the memory store is full of live windows. */
const OVERFLOW_BUCKETS = 1024
/** A full store of live windows is swept for expired ones at most this often (a sweep is O(n)). */
const SWEEP_INTERVAL_MS = 1000

function bucketOf(key: string): number {
  // FNV-1a: cheap and well spread; the bucket only groups keys, it protects nothing.
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % OVERFLOW_BUCKETS
}

/**
 * Process-memory counters, bounded to `maxKeys` windows. A live window is never evicted to make
 * room (that would hand a flooding attacker a reset of anyone's counter): while
 * the store is full of live windows, new keys share one of 1,024 overflow counters instead. Sharing
 * can only make a new subject's limit stricter, never looser, and the memory stays bounded.
 */
export function createMemoryCounterStore(clock: Clock, maxKeys = 100_000): CounterStore {
  type Entry = { count: number; resetAt: number }
  const counters = new Map<string, Entry>()
  let lastSweep = -Infinity
  const live = (key: string, now: number) => {
    const entry = counters.get(key)
    if (entry !== undefined && entry.resetAt <= now) {
      counters.delete(key)
      return undefined
    }
    return entry
  }
  const sweep = (now: number) => {
    if (now - lastSweep < SWEEP_INTERVAL_MS) return
    lastSweep = now
    for (const [key, entry] of counters) if (entry.resetAt <= now) counters.delete(key)
  }
  /**
   * The key whose counter `key` is counted in: its own, or its overflow bucket when the store is
   * full.
   */
  const resolve = (key: string, now: number): string => {
    if (live(key, now) !== undefined) return key
    if (counters.size >= maxKeys) sweep(now)
    if (counters.size < maxKeys) return key
    return `\u0000overflow:${bucketOf(key)}`
  }
  const bump = (key: string, windowMs: number, now: number): Entry => {
    let entry = live(key, now)
    if (entry === undefined) {
      entry = { count: 0, resetAt: now + windowMs }
      counters.set(key, entry)
    }
    entry.count += 1
    return entry
  }
  const unbump = (key: string, now: number) => {
    const entry = live(key, now)
    if (entry !== undefined && entry.count > 0) entry.count -= 1
  }
  return {
    async increment(key, windowMs) {
      const now = clock.now().getTime()
      const entry = bump(resolve(key, now), windowMs, now)
      return { count: entry.count, resetInMs: entry.resetAt - now }
    },
    async read(key) {
      const now = clock.now().getTime()
      const entry =
        live(key, now) ??
        (counters.size >= maxKeys ? live(`\u0000overflow:${bucketOf(key)}`, now) : undefined)
      return entry === undefined
        ? { count: 0, resetInMs: 0 }
        : { count: entry.count, resetInMs: entry.resetAt - now }
    },
    // Synchronous from first increment to last: nothing else runs on the event loop in between.
    async reserve(entries) {
      const now = clock.now().getTime()
      const taken: string[] = []
      for (const { key, limit, windowMs } of entries) {
        const resolved = resolve(key, now)
        const entry = bump(resolved, windowMs, now)
        taken.push(resolved)
        if (entry.count > limit) {
          for (const k of taken) unbump(k, now)
          return { granted: false, resetInMs: entry.resetAt - now }
        }
      }
      return {
        granted: true,
        async release() {
          const at = clock.now().getTime()
          for (const k of taken) unbump(k, at)
        },
      }
    },
  }
}

// INCR and the first PEXPIRE in one atomic step, so a counter can never be left without expiry.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`

// The reservation as one script, so it is atomic across every instance sharing the Redis: each
// counter is incremented in order; the first to pass its limit undoes the increments made so far.
// ARGV: limit and window (ms) of each key in turn. Returns {1} or {0, ms until the spent one
// resets}.
const RESERVE_SCRIPT = `
for i = 1, #KEYS do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 or redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i]) end
  if count > tonumber(ARGV[2 * i - 1]) then
    local ttl = redis.call('PTTL', KEYS[i])
    for j = 1, i do redis.call('DECR', KEYS[j]) end
    return {0, ttl}
  end
end
return {1, 0}
`

// Gives one reserved attempt back; never below zero, never on a counter whose window has closed.
const RELEASE_SCRIPT = `
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]))
  if count ~= nil and count > 0 then redis.call('DECR', KEYS[i]) end
end
return 1
`

export function createRedisCounterStore(redis: Redis, prefix = 'sb:budget:'): CounterStore {
  return {
    async reserve(entries) {
      const keys = entries.map((e) => prefix + e.key)
      const args = entries.flatMap((e) => [e.limit, e.windowMs])
      const [granted, ttl] = (await redis.eval(RESERVE_SCRIPT, keys.length, ...keys, ...args)) as [
        number,
        number,
      ]
      if (granted === 0) return { granted: false, resetInMs: Math.max(ttl, 0) }
      return {
        granted: true,
        async release() {
          await redis.eval(RELEASE_SCRIPT, keys.length, ...keys)
        },
      }
    },
    async increment(key, windowMs) {
      const [count, ttl] = (await redis.eval(INCREMENT_SCRIPT, 1, prefix + key, windowMs)) as [
        number,
        number,
      ]
      return { count, resetInMs: Math.max(ttl, 0) }
    },
    async read(key) {
      const [[, count], [, ttl]] = (await redis
        .multi()
        .get(prefix + key)
        .pttl(prefix + key)
        .exec()) as [[unknown, string | null], [unknown, number]]
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
    async reserve(entries) {
      const reservation = await attempt((s) => s.reserve(entries))
      if (!reservation.granted) return reservation
      // Released where it was reserved; if that store has gone away since, there is nothing to give
      // back.
      return { granted: true, release: () => reservation.release().catch(() => undefined) }
    },
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

  private entries(charges: BudgetCharge[]): ReserveEntry[] {
    return charges.map((c) => ({
      key: this.key(c),
      limit: c.budget.limit,
      windowMs: c.budget.windowSeconds * 1000,
    }))
  }

  /**
   * A cheap early refusal (e.g. before the body is validated, docs/API.md#status-rules) when a
   * budget is already spent. Not a guard by itself: only attempt() reserves atomically.
   */
  async assertAvailable(charges: BudgetCharge[]): Promise<void> {
    const states = await Promise.all(charges.map((c) => this.store.read(this.key(c))))
    const spent = states.filter((state, i) => state.count >= charges[i]!.budget.limit)
    if (spent.length === 0) return
    const waitMs = Math.max(...spent.map((s) => s.resetInMs))
    throw rateLimited(waitMs)
  }

  /**
   * Takes one use of every budget given, atomically (none when one is spent): for rates where every
   * use counts, not only failures. The caller gives the use back with release() when the thing it
   * paid for did not happen.
   */
  async reserve(charges: BudgetCharge[]): Promise<Reservation> {
    return this.store.reserve(this.entries(charges))
  }

  /** How much of the budget the subject has used in the current window (0 when none). */
  async used(charge: BudgetCharge): Promise<number> {
    return (await this.store.read(this.key(charge))).count
  }

  /** Records one failed attempt against every budget given (no limit check). */
  async charge(charges: BudgetCharge[]): Promise<void> {
    await Promise.all(
      charges.map((c) => this.store.increment(this.key(c), c.budget.windowSeconds * 1000)),
    )
  }

  /**
   * Runs one attempt under the budgets: reserves it on every budget first (RATE_LIMITED when one is
   * spent, and then `verify` does not run), then verifies. A failed attempt (`verify` returns null)
   * keeps its reservation — it is the charge; a successful one is given back, since only failures
   * count (docs/API.md#two-factor-authentication, #rate-limits). When `verify` throws, nothing was
   * decided about the secret (the hashing queue was full, the database failed …), so the
   * reservation is given back too.
   *
   * Order matters: charges are reserved in the order given and the first spent one stops the rest,
   * so list the narrowest budget first — a source over its own budget then never reaches the wider
   * ones (one IP cannot spend an email's budget).
   */
  async attempt<T>(charges: BudgetCharge[], verify: () => Promise<T | null>): Promise<T | null> {
    const reservation = await this.store.reserve(this.entries(charges))
    if (!reservation.granted) throw rateLimited(reservation.resetInMs)
    let result: T | null
    try {
      result = await verify()
    } catch (error) {
      await reservation.release()
      throw error
    }
    if (result !== null) await reservation.release()
    return result
  }
}

function rateLimited(waitMs: number): AppError {
  return new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) })
}
