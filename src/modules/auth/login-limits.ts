/**
 * Login failure budgets (CONTRACT.md §12). Only failures count. The per-email ceiling is high
 * (NIST SP 800-63B §5.2.2 allows up to 100) so an attacker far away cannot cheaply lock a user out;
 * the (email, IP) pair is what stops a single source from guessing one account.
 */
import type { Budget, BudgetCharge } from '../../lib/attempt-budget.js'

const WINDOW = 15 * 60

export const LOGIN_FAILURES_PER_EMAIL_AND_IP: Budget = { name: 'login:email+ip', limit: 10, windowSeconds: WINDOW }
export const LOGIN_FAILURES_PER_EMAIL: Budget = { name: 'login:email', limit: 100, windowSeconds: WINDOW }
export const LOGIN_FAILURES_PER_IP: Budget = { name: 'login:ip', limit: 100, windowSeconds: WINDOW }

/** The budgets a login attempt draws on; without a (usable) email only the IP budget applies. */
export function loginCharges(email: string | null, ip: string): BudgetCharge[] {
  const charges: BudgetCharge[] = [{ budget: LOGIN_FAILURES_PER_IP, subject: ip }]
  if (email !== null) {
    charges.push({ budget: LOGIN_FAILURES_PER_EMAIL, subject: email })
    charges.push({ budget: LOGIN_FAILURES_PER_EMAIL_AND_IP, subject: `${email}\u0000${ip}` })
  }
  return charges
}
