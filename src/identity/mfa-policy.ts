/**
 * The restricted session of the two-factor policy.
 *
 * A caller is restricted when the instance policy covers their account
 * (settings/two-factor-policy.ts) and they have no second factor — `isMfaEnabled`, the one "has a
 * second factor" check — and their session was not opened through an identity provider trusted to
 * vouch for MFA (`sessions.idp_mfa`). It is evaluated on every request, not stored on the session:
 * a policy switched on applies to sessions already open, and a factor enrolled lifts the
 * restriction from the very session that enrolled it (that session proved the password and then the
 * new factor; enabling also signs out every other session), with no new sign-in. Disabling the
 * factor under the policy restricts the session again at once.
 *
 * A restricted caller reaches only the routes that declare `config: { allowedDuringEnrollment: true
 * }` (plugins/route-auth.ts): the current user, logout, CSRF, MFA status and TOTP enrolment
 * (begin/confirm/cancel). Everything else answers 403 MFA_ENROLLMENT_REQUIRED — personal API
 * tokens (`sb_…`) of such a user included: a token must not outlive the policy that its owner does
 * not meet. They work again once the owner has a second factor.
 */
import { policyCovers } from './two-factor-requirement.js'
import type { Caller } from './caller.js'

/**
 * Everything this needs came with the caller's authentication query: the policy, the
 * account's second factors and the session's provider flag, all as of this request — a policy
 * switched on, or a factor removed, on any instance applies at the very next request.
 */
export function enrollmentRequired(caller: Caller): boolean {
  if (!policyCovers(caller.twoFactorPolicy, caller.user)) return false
  if (caller.mfa.hasSecondFactor) return false
  return !caller.vouchedByProvider
}
