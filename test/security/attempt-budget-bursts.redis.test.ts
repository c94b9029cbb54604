/**
 * Attempt budgets across instances: two instances on one database and one Redis, the burst spread
 * over both, still evaluate at most each budget's limit (the reservation is one Lua script).
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { startPeerInstance, useTestApp, type PeerInstance } from '../helpers/app.js'
import {
  enrolmentConfirmBurst,
  loginBurst,
  mfaAccountBurst,
  mfaTokenBackupCodeBurst,
  mfaTokenTotpBurst,
  oneAddressCannotSpendTheEmailBudget,
  reauthenticationBurst,
  tokenCreationBurst,
} from './attempt-budget-bursts.js'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

describe('attempt budgets under concurrent bursts (two instances, one Redis)', () => {
  const t = useTestApp({ env: { REDIS_URL: redisUrl, RATE_LIMIT_GENERAL: '0' } })
  let peer: PeerInstance
  beforeAll(async () => {
    peer = await startPeerInstance(t)
    // Until its connection is up an instance counts in process memory (the documented fallback);
    // the property under test is the shared budget, so both must be connected first.
    for (const redis of [t.deps.redis!, peer.deps.redis!]) {
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve))
    }
  })
  afterAll(async () => {
    await peer?.close()
  })
  const apps = () => [t.app, peer.app]

  it('a login burst for one (email, IP) evaluates at most 10 passwords', () =>
    loginBurst(t, apps()))
  it('one IP cannot spend the per-email login budget', () =>
    oneAddressCannotSpendTheEmailBudget(t, apps()))
  it('a re-authentication burst evaluates at most 10 passwords', () =>
    reauthenticationBurst(t, apps()))
  it('a TOTP burst on one mfa_token evaluates at most 5 codes', () => mfaTokenTotpBurst(t, apps()))
  it('a backup-code burst on one mfa_token evaluates at most 5 codes', () =>
    mfaTokenBackupCodeBurst(t, apps()))
  it('a second-factor burst over many mfa_tokens evaluates at most 10 codes per account', () =>
    mfaAccountBurst(t, apps()))
  it('an enrolment-confirm burst evaluates at most 10 codes', () =>
    enrolmentConfirmBurst(t, apps()))
  it('a token-creation burst creates at most 10 tokens', () => tokenCreationBurst(t, apps()))
})
