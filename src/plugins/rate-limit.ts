/**
 * Request rate limits (docs/API.md#rate-limits) through @fastify/rate-limit, counted in the same
 * store as the attempt budgets: Redis when configured (one budget for all instances), else process
 * memory, falling back to memory while Redis is unreachable.
 *
 * Every route gets the general limit (RATE_LIMIT_GENERAL per minute, keyed by the credential, else
 * the client IP) unless it declares its own with perUser()/perIp() — or opts out (`rateLimit:
 * false`, used by the health probes). The limit hooks run after authentication, so a per-user limit
 * knows the user, and before the body is read.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import rateLimit, { type FastifyRateLimitStore, type RateLimitOptions } from '@fastify/rate-limit'
import { AppError } from '../errors.js'
import type { CounterStore } from '../lib/attempt-budget.js'
import { sha256Hex } from '../lib/crypto.js'

const MINUTE = 60_000

type IncrementCallback = (error: Error | null, result?: { current: number; ttl: number }) => void

/**
 * Presents a CounterStore as a @fastify/rate-limit store; each route-specific limit gets its own
 * keys.
 */
function storeOver(
  counters: CounterStore,
  scope: string,
): FastifyRateLimitStore & { read(key: string, cb: IncrementCallback): void } {
  const keyOf = (key: string) => `rl:${scope}:${sha256Hex(key)}`
  return {
    incr(key, callback: IncrementCallback, timeWindow) {
      counters.increment(keyOf(key), timeWindow).then(
        (state) => callback(null, { current: state.count, ttl: state.resetInMs }),
        (error: Error) => callback(error),
      )
    },
    read(key, callback: IncrementCallback) {
      counters.read(keyOf(key)).then(
        (state) => callback(null, { current: state.count, ttl: state.resetInMs }),
        (error: Error) => callback(error),
      )
    },
    // @fastify/rate-limit hands child() the route's merged limit options, with the route itself
    // under `routeInfo` (its types say otherwise); without it every route-specific limit would
    // share one counter per key.
    child: (options) => {
      const route = (options as unknown as { routeInfo: { method: unknown; url: unknown } })
        .routeInfo
      return storeOver(counters, `${String(route.method)}:${String(route.url)}`)
    },
  }
}

/**
 * A request whose credentials fail authentication is refused before the limit hooks run, so it is
 * counted here instead: against the general limit of its IP — the key an
 * unauthenticated request is counted under — and refused with 429 once that is spent. Invalid
 * tokens therefore cost an attacker the same budget as any other request.
 */
export async function chargeFailedAuthentication(
  counters: CounterStore,
  ip: string,
  generalPerMinute: number,
): Promise<void> {
  if (generalPerMinute <= 0) return
  const state = await counters.increment(`rl:general:${sha256Hex(`ip:${ip}`)}`, MINUTE)
  if (state.count > generalPerMinute)
    throw new AppError('RATE_LIMITED', {
      retryAfter: Math.max(1, Math.ceil(state.resetInMs / 1000)),
    })
}

function byCredential(request: FastifyRequest): string {
  const caller = request.caller
  if (caller === null) return `ip:${request.ip}`
  return caller.sessionId !== null ? `session:${caller.sessionId}` : `token:${caller.tokenId}`
}

function byUser(request: FastifyRequest): string {
  return request.caller === null ? `ip:${request.ip}` : `user:${request.caller.user.id}`
}

/** A route's own limit, counted per signed-in user. */
export function perUser(max: number, minutes: number): RateLimitOptions {
  return { max, timeWindow: minutes * MINUTE, keyGenerator: byUser }
}

/** A route's own limit, counted per client IP. */
export function perIp(max: number, minutes: number): RateLimitOptions {
  return { max, timeWindow: minutes * MINUTE, keyGenerator: (request) => `ip:${request.ip}` }
}

export async function installRateLimits(
  app: FastifyInstance,
  options: { counters: CounterStore; generalPerMinute: number },
): Promise<void> {
  const { counters } = options
  await app.register(rateLimit, {
    // RATE_LIMIT_GENERAL=0 switches the general limit off; the specific limits stay.
    global: options.generalPerMinute > 0,
    max: options.generalPerMinute,
    timeWindow: MINUTE,
    keyGenerator: byCredential,
    hook: 'onRequest',
    // RateLimit-Limit / -Remaining / -Reset, as docs/API.md#errors names them
    enableDraftSpec: true,
    store: class {
      constructor() {
        return storeOver(counters, 'general')
      }
    } as never,
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(context.ttl / 1000)) }),
  })
}
