/**
 * Known clients: the sign-ins that keep a reserved share of the hashing bound
 * (lib/password-hash.ts), so that a flood of password guesses from strangers cannot lock the team
 * out. A client is known when, within the last 30 days, it signed in successfully —
 *
 * - from this address (a marker in the attempt-budget store, shared through Redis when configured,
 *   set by every completed sign-in, kept 30 days from the first one in its window), and the address
 *   has no failed sign-in in the current 15-minute window; or
 * - from this browser as the account it signs in to now: the `device` cookie (`__Host-device` on
 *   https), HttpOnly, renewed by every completed sign-in for 30 days, holds its issue time and an
 *   HMAC over the account id and that time under a key derived from JWT_SECRET — it names no
 *   account and cannot be made for another — and the (account, address) pair has no failed sign-in
 *   in the current window.
 *
 * Knowing a client grants no access: it only decides where in the hashing queue a password check
 * waits. The per-client share of the bound applies to known clients too.
 */
import type { FastifyReply } from 'fastify'
import type { Deps } from '../../deps.js'
import type { Budget } from '../../lib/attempt-budget.js'
import { deriveKey, hmacBase64Url, safeEqual } from '../../lib/crypto.js'
import { cookie } from '../../identity/cookies.js'
import { LOGIN_FAILURES_PER_EMAIL_AND_IP, LOGIN_FAILURES_PER_IP } from './login-limits.js'

export const DEVICE_COOKIE = 'device'
const KNOWN_FOR_SECONDS = 30 * 24 * 60 * 60
/** Not a limit: a marker whose count says the address signed in within its 30-day window. */
const SIGNED_IN_FROM_ADDRESS: Budget = {
  name: 'known-client:ip',
  limit: 1,
  windowSeconds: KNOWN_FOR_SECONDS,
}

const deviceKeys = new WeakMap<Deps, Buffer>()
function deviceKey(deps: Deps): Buffer {
  let key = deviceKeys.get(deps)
  if (key === undefined)
    deviceKeys.set(deps, (key = deriveKey(deps.secrets.jwtSecret, 'device-cookie')))
  return key
}

const deviceMac = (deps: Deps, userId: string, issuedAt: number) =>
  hmacBase64Url(deviceKey(deps), `device:${userId}:${issuedAt}`)

/** Whether the device cookie was issued to this account within the last 30 days. */
export function deviceCookieMatches(
  deps: Deps,
  value: string | undefined,
  userId: string,
): boolean {
  const [issued, mac, extra] = (value ?? '').split('.')
  if (!issued || !mac || extra !== undefined || !/^\d{1,15}$/.test(issued)) return false
  const issuedAt = Number(issued)
  const age = deps.clock.now().getTime() - issuedAt
  return (
    age >= 0 && age < KNOWN_FOR_SECONDS * 1000 && safeEqual(mac, deviceMac(deps, userId, issuedAt))
  )
}

/**
 * Remembers a completed sign-in: the device cookie on the answer, the marker for the address.
 * The marker is not awaited — the sign-in has succeeded whatever becomes of it, and the counter
 * store falls back to process memory when Redis does not answer.
 */
export function rememberClient(reply: FastifyReply, deps: Deps, userId: string): void {
  const issuedAt = deps.clock.now().getTime()
  reply.header(
    'set-cookie',
    cookie(
      deps,
      DEVICE_COOKIE,
      `${issuedAt}.${deviceMac(deps, userId, issuedAt)}`,
      true,
      KNOWN_FOR_SECONDS,
    ),
  )
  void deps.budgets
    .charge([{ budget: SIGNED_IN_FROM_ADDRESS, subject: reply.request.ip }])
    .catch(() => undefined)
}

export interface ClientStanding {
  /** Known before the account is looked up: at most the device cookie is left to check. */
  mayBeKnown: boolean
  /** Whether the client is known, once the account (or that there is none) is known. */
  known(userId: string | null): boolean
  /**
   * Whose per-client share of the hashing bound the attempt uses: the address's, except for a
   * client known by its device cookie, which has its own — strangers flooding from the same
   * address (a shared NAT, the one proxy hop in front) would otherwise hold every place of that
   * address's share and turn the known client away at once. Before the account is looked up the
   * cookie stands for it; a cookie that turns out not to match falls back to the address.
   */
  client(userId?: string | null): string
}

/**
 * The standing of a password sign-in's client, read before the attempt is reserved (which counts
 * as a failure until it succeeds).
 */
export async function clientStanding(
  deps: Deps,
  input: { ip: string; email: string; device?: string },
): Promise<ClientStanding> {
  const [signedInHere, addressFailures, pairFailures] = await Promise.all([
    deps.budgets.used({ budget: SIGNED_IN_FROM_ADDRESS, subject: input.ip }),
    deps.budgets.used({ budget: LOGIN_FAILURES_PER_IP, subject: input.ip }),
    input.device === undefined
      ? Promise.resolve(1)
      : deps.budgets.used({
          budget: LOGIN_FAILURES_PER_EMAIL_AND_IP,
          subject: `${input.email}\u0000${input.ip}`,
        }),
  ])
  const knownAddress = signedInHere > 0 && addressFailures === 0
  const byDevice = (userId: string | null) =>
    userId !== null && pairFailures === 0 && deviceCookieMatches(deps, input.device, userId)
  return {
    mayBeKnown: knownAddress || pairFailures === 0,
    known: (userId) => knownAddress || byDevice(userId),
    client: (userId) => {
      if (knownAddress || input.device === undefined || pairFailures !== 0) return input.ip
      if (userId === undefined) return `device:${input.device}`
      return byDevice(userId) ? `device:${input.device}` : input.ip
    },
  }
}
