/**
 * Every attempt budget is reserved atomically before the verification runs, so a
 * burst of concurrent wrong attempts is evaluated at most `limit` times (the rest: 429 with
 * retryAfter). One instance with process-memory counters, on both engines.
 */
import { describe, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
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

describe('attempt budgets under concurrent bursts (one instance)', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
  const apps = () => [t.app]

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
