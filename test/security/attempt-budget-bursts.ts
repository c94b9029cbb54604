/**
 * Burst scenarios for the attempt budgets, shared by the single-instance test
 * (attempt-budget-bursts.test.ts, memory counters, both engines) and the two-instance Redis test
 * (attempt-budget-bursts.redis.test.ts). Each sends N ≥ 50 wrong attempts at once and counts how
 * many were evaluated (answered with the "wrong" reason) and how many were refused with 429.
 */
import { randomInt } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { TestContext } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  loginForMfaToken,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'

export const BURST = 60

/** An address of the test's own: Redis outlives runs and is shared by both engines' projects. */
export const ownAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`

export interface BurstCount {
  evaluated: number
  limited: number
  /** 503 from the bound on hashing work (item 6): refused before evaluation, budget given back. */
  busy: number
  other: number[]
}

/** Sends the requests at once, spread over the instances, and tallies the answers. */
export async function burst(
  apps: FastifyInstance[],
  n: number,
  send: (app: FastifyInstance, i: number) => Promise<LightMyRequestResponse>,
  wrongReason: string,
): Promise<BurstCount> {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) => send(apps[i % apps.length]!, i)),
  )
  const count: BurstCount = { evaluated: 0, limited: 0, busy: 0, other: [] }
  for (const response of responses) {
    const body = response.json()
    if (body.reason === wrongReason) count.evaluated++
    else if (response.statusCode === 429 && body.reason === 'RATE_LIMITED') {
      expect(body.retryAfter).toBeGreaterThan(0)
      expect(response.headers['retry-after']).toBe(String(body.retryAfter))
      count.limited++
    } else if (response.statusCode === 503 && body.reason === 'SERVICE_UNAVAILABLE') {
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
      count.busy++
    } else count.other.push(response.statusCode)
  }
  // Printed so a run records the counts, before and after.
  console.info(
    `burst ${wrongReason}: ${n} sent, ${count.evaluated} evaluated, ${count.limited} limited (429), ${count.busy} busy (503)`,
  )
  return count
}

function wrongTotp(secret: string, t: TestContext): string {
  return totpCode(secret, t.clock.now()) === '424242' ? '242424' : '424242'
}

export async function loginBurst(t: TestContext, apps: FastifyInstance[]): Promise<void> {
  const { email } = await createUser(t)
  const ip = ownAddress()
  const result = await burst(
    apps,
    BURST,
    (app, i) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: `wrong guess ${i}` },
        remoteAddress: ip,
      }),
    'INVALID_CREDENTIALS',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(10)
  expect(result.limited).toBeGreaterThanOrEqual(BURST - 10)
}

/**
 * 150 wrong passwords from one IP spend only that IP's share: the owner signs in from elsewhere.
 */
export async function oneAddressCannotSpendTheEmailBudget(
  t: TestContext,
  apps: FastifyInstance[],
): Promise<void> {
  const { email } = await createUser(t)
  const attacker = ownAddress()
  const result = await burst(
    apps,
    150,
    (app, i) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: `wrong guess ${i}` },
        remoteAddress: attacker,
      }),
    'INVALID_CREDENTIALS',
  )
  expect(result.evaluated).toBeLessThanOrEqual(10)
  const owner = await apps[0]!.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: DEFAULT_PASSWORD },
    remoteAddress: ownAddress(),
  })
  expect(owner.statusCode).toBe(200)
}

export async function reauthenticationBurst(
  t: TestContext,
  apps: FastifyInstance[],
): Promise<void> {
  const user = await createSignedInUser(t)
  const result = await burst(
    apps,
    BURST,
    (app, i) =>
      app.inject({
        method: 'POST',
        url: '/api/users/me/password',
        headers: bearer(user.token),
        payload: {
          current_password: `wrong guess ${i}`,
          new_password: 'another sound passphrase 7',
        },
      }),
    'INVALID_PASSWORD',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(10)
}

export async function mfaTokenTotpBurst(t: TestContext, apps: FastifyInstance[]): Promise<void> {
  const user = await createSignedInUser(t)
  const { secret } = await enableMfa(t, user)
  const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
  const code = wrongTotp(secret, t)
  const result = await burst(
    apps,
    BURST,
    (app) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/mfa/verify',
        payload: { mfa_token: mfaToken, code },
      }),
    'INVALID_CODE',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(5)
}

export async function mfaTokenBackupCodeBurst(
  t: TestContext,
  apps: FastifyInstance[],
): Promise<void> {
  const user = await createSignedInUser(t)
  await enableMfa(t, user)
  const mfaToken = await loginForMfaToken(t, user.email, DEFAULT_PASSWORD)
  const result = await burst(
    apps,
    50,
    (app) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/mfa/verify',
        payload: { mfa_token: mfaToken, code: 'zzzzz-zzzzz' },
      }),
    'INVALID_CODE',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(5)
}

/** Many mfa_tokens of one account: the account's 10 is the ceiling. */
export async function mfaAccountBurst(t: TestContext, apps: FastifyInstance[]): Promise<void> {
  const user = await createSignedInUser(t)
  const { secret } = await enableMfa(t, user)
  const tokens: string[] = []
  for (let i = 0; i < 12; i++) tokens.push(await loginForMfaToken(t, user.email, DEFAULT_PASSWORD))
  const code = wrongTotp(secret, t)
  const result = await burst(
    apps,
    BURST,
    (app, i) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/mfa/verify',
        payload: { mfa_token: tokens[i % tokens.length], code },
      }),
    'INVALID_CODE',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(10)
}

export async function enrolmentConfirmBurst(
  t: TestContext,
  apps: FastifyInstance[],
): Promise<void> {
  const user = await createSignedInUser(t)
  const begin = await t.app.inject({
    method: 'POST',
    url: '/api/auth/mfa/enroll/begin',
    headers: bearer(user.token),
    payload: { password: DEFAULT_PASSWORD },
  })
  const code = wrongTotp(begin.json().secret, t)
  const result = await burst(
    apps,
    BURST,
    (app) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/mfa/enroll/confirm',
        headers: bearer(user.token),
        payload: { code },
      }),
    'INVALID_CODE',
  )
  expect(result.other).toEqual([])
  expect(result.evaluated).toBeLessThanOrEqual(10)
}

/**
 * Token creation (10 per 15 minutes per user, every attempt counts): a burst creates at most 10.
 */
export async function tokenCreationBurst(t: TestContext, apps: FastifyInstance[]): Promise<void> {
  const user = await createSignedInUser(t)
  const responses = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      apps[i % apps.length]!.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: bearer(user.token),
        payload: { name: `burst ${i}`, permissions: ['links:read'] },
      }),
    ),
  )
  const created = responses.filter((r) => r.statusCode === 201).length
  const limited = responses.filter(
    (r) => r.statusCode === 429 && r.json().reason === 'RATE_LIMITED',
  ).length
  console.info(`burst POST /api/tokens: ${BURST} sent, ${created} created, ${limited} limited`)
  expect(created).toBeLessThanOrEqual(10)
  expect(created + limited).toBe(BURST)
}
