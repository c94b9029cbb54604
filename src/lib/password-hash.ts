/**
 * Password (and other low-entropy secret) hashing with argon2id — OWASP's first choice, with
 * its minimum parameters (m = 19 MiB, t = 2, p = 1) as the configured default.
 *
 * The work is bounded process-wide: at most `concurrency` hashes run at once and
 * at most `queue` wait; beyond that a request is refused at once with 503 SERVICE_UNAVAILABLE and
 * Retry-After, instead of every sign-in slowing down without limit under a flood. One client (an IP
 * address, where the caller names it) may hold at most an eighth of the running and waiting places,
 * so a flood from one address cannot crowd out everyone else's sign-ins.
 *
 * A flood from a few addresses still could (about nine kept the queue full), so a
 * quarter of the waiting places is reserved for known clients — an address or a device that signed
 * in successfully within 30 days and has no recent failure (modules/auth/known-clients.ts decides)
 * — and known clients are served first: a known client waits for the hashes running now and the
 * known ones ahead of it, never for the strangers' queue. Strangers keep the rest of the bound.
 */
import type * as Argon2 from '@node-rs/argon2'
import { AppError } from '../errors.js'

/**
 * The argon2 binding, loaded by the first hash or verification: its native library, loader and
 * allocator are a share of the idle footprint that a process serving sessions and tokens but no
 * sign-in yet does not need (docs/decisions/0002-start-up-footprint.md).
 */
let argon2: Promise<typeof Argon2> | undefined
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'))

export interface PasswordHashParams {
  memoryCost: number
  timeCost: number
  parallelism: number
}

export interface HashWorkLimits {
  /** Hashes running at once. */
  concurrency: number
  /** Hashes waiting for a place; more are refused with 503. */
  queue: number
}

export interface HashOptions {
  /** Who the work is for (the client IP), so one client cannot take every place. */
  client?: string
  /** A known client: may use the reserved places and is served before strangers. */
  known?: boolean
}

export interface PasswordHasher {
  hash(secret: string): Promise<string>
  /** False for a wrong secret and for a stored value that is not an argon2 hash. */
  verify(stored: string, secret: string, options?: HashOptions): Promise<boolean>
  /**
   * Spends the same time as verify() against a real hash. Called when there is no account (or no
   * password) so that response timing does not reveal which emails are registered.
   */
  verifyDummy(secret: string, options?: HashOptions): Promise<void>
  /**
   * Throws the 503 that verify() would throw for this client now, before the caller does the work
   * that leads to it (looking the account up): under a flood, refusals stay cheap.
   */
  assertAdmits(options?: HashOptions): void
}

/** Seconds a refused caller is told to wait: the queue drains in well under that. */
const RETRY_AFTER_SECONDS = 1

/**
 * A counting semaphore with a bounded queue, a per-client share, and a reserved share for known
 * clients: strangers may wait only while fewer than `queue - reserved` wait, known clients while
 * fewer than `queue` do, and a finishing task hands its place to the oldest known waiter first.
 */
export function createWorkLimiter(limits: HashWorkLimits) {
  const perClient = Math.max(1, Math.floor((limits.concurrency + limits.queue) / 8))
  // With a queue of 1 the one place is the known clients'; with none there is nothing to reserve.
  const reserved = limits.queue === 0 ? 0 : Math.max(1, Math.floor(limits.queue / 4))
  let running = 0
  const waitingKnown: Array<() => void> = []
  const waitingStrangers: Array<() => void> = []
  const held = new Map<string, number>()
  const busy = () =>
    new AppError('SERVICE_UNAVAILABLE', {
      message: 'The server is busy. Try again shortly.',
      retryAfter: RETRY_AFTER_SECONDS,
    })

  const assertAdmits = (options: HashOptions = {}): void => {
    const { client, known = false } = options
    // Refusals only when the work would have to wait: with a free place nobody is crowded out.
    const mustWait = running >= limits.concurrency
    const waiting = waitingKnown.length + waitingStrangers.length
    if (mustWait && waiting >= (known ? limits.queue : limits.queue - reserved)) throw busy()
    if (mustWait && client !== undefined && (held.get(client) ?? 0) >= perClient) throw busy()
  }

  async function run<T>(work: () => Promise<T>, options: HashOptions = {}): Promise<T> {
    const { client, known = false } = options
    assertAdmits(options)
    if (client !== undefined) held.set(client, (held.get(client) ?? 0) + 1)
    try {
      if (running < limits.concurrency) running++
      // The place is handed over by the finishing task (running stays counted), so order holds.
      else
        await new Promise<void>((resolve) =>
          (known ? waitingKnown : waitingStrangers).push(resolve),
        )
      try {
        return await work()
      } finally {
        const next = waitingKnown.shift() ?? waitingStrangers.shift()
        if (next === undefined) running--
        else next()
      }
    } finally {
      if (client !== undefined) {
        const count = (held.get(client) ?? 1) - 1
        if (count === 0) held.delete(client)
        else held.set(client, count)
      }
    }
  }
  return Object.assign(run, { assertAdmits })
}

export function createPasswordHasher(
  params: PasswordHashParams,
  limits: HashWorkLimits = { concurrency: 2, queue: 32 },
): PasswordHasher {
  // @node-rs/argon2 defaults to argon2id; only the costs are ours to set.
  const options = {
    memoryCost: params.memoryCost,
    timeCost: params.timeCost,
    parallelism: params.parallelism,
  }
  const run = createWorkLimiter(limits)
  let dummy: Promise<string> | undefined
  const verifyUnbounded = async (stored: string, secret: string) => {
    try {
      return await (await loadArgon2()).verify(stored, secret)
    } catch {
      return false
    }
  }
  const hasher: PasswordHasher = {
    hash: (secret) => run(async () => (await loadArgon2()).hash(secret, options)),
    verify: (stored, secret, opts) => run(() => verifyUnbounded(stored, secret), opts),
    assertAdmits: (opts) => run.assertAdmits(opts),
    async verifyDummy(secret, opts) {
      dummy ??= loadArgon2().then(({ hash }) => hash('switchboard-timing-equaliser', options))
      await hasher.verify(await dummy, secret, opts)
    },
  }
  return hasher
}
