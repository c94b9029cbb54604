/**
 * Login failure budgets (docs/API.md#rate-limits). Only failures count. The per-email ceiling is
 * high (NIST SP 800-63B §5.2.2 allows up to 100) so an attacker far away cannot cheaply lock a user
 * out; the (email, IP) pair is what stops a single source from guessing one account.
 */
import type { Budget, BudgetCharge } from '../../lib/attempt-budget.js'

const WINDOW = 15 * 60

export const LOGIN_FAILURES_PER_EMAIL_AND_IP: Budget = {
  name: 'login:email+ip',
  limit: 10,
  windowSeconds: WINDOW,
}
export const LOGIN_FAILURES_PER_EMAIL: Budget = {
  name: 'login:email',
  limit: 100,
  windowSeconds: WINDOW,
}
export const LOGIN_FAILURES_PER_IP: Budget = { name: 'login:ip', limit: 100, windowSeconds: WINDOW }

/**
 * The budgets a login attempt draws on, narrowest first; without a (usable) email only the IP
 * budget applies. The order is the defence against lock-out: attempts are reserved in
 * this order and the first spent budget stops the rest, so an attempt refused by its (email, IP)
 * pair never reaches the per-email budget — one address can spend at most 10 of the email's 100,
 * and locking an account out takes at least ten addresses within 15 minutes.
 */
export function loginCharges(email: string | null, ip: string): BudgetCharge[] {
  if (email === null) return [{ budget: LOGIN_FAILURES_PER_IP, subject: ip }]
  return [
    { budget: LOGIN_FAILURES_PER_EMAIL_AND_IP, subject: `${email}\u0000${ip}` },
    { budget: LOGIN_FAILURES_PER_IP, subject: ip },
    { budget: LOGIN_FAILURES_PER_EMAIL, subject: email },
  ]
}
