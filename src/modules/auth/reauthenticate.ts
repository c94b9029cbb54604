/**
 * POST /api/auth/reauthenticate — opens the session's re-authentication window ("sudo
 * mode", as GitHub's and Keycloak's): the person proves again who they are, and for the next 10
 * minutes (reauth.ts, REAUTH_WINDOW_SECONDS) sensitive changes of this session need no proof in
 * their request. The proof is the whole of a sign-in's: the password and, when the account has a
 * second factor, that factor now (a TOTP or backup code, or an answer of a registered passkey to
 * this session's proof challenge) — so the window stands for both factors (NIST SP 800-63B §7.2,
 * reauthentication within a session). Each attempt spends the same per-account budgets as the
 * changes themselves. An account without a password has no password to prove: it signs in again
 * (at its identity provider or with a passkey), and that sign-in opens the window.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { isMfaEnabled } from '../mfa/service.js'
import { proveSecondFactor, type FactorProof } from '../passkeys/proof.js'
import { REAUTH_WINDOW_SECONDS, verifyCurrentPassword } from '../../identity/reauth.js'
import { markSessionReauthenticated } from '../../identity/sessions.repo.js'

export async function reauthenticate(
  deps: Deps,
  caller: Caller,
  proof: FactorProof,
  ctx: RequestContext,
): Promise<{ reauthenticated_until: string }> {
  if (!caller.user.has_password) throw new AppError('RECENT_SIGN_IN_REQUIRED')
  // Never the window itself: this is where it is earned.
  await verifyCurrentPassword(deps, caller.user.id, proof.password)
  const secondFactor = (await isMfaEnabled(deps.db, caller.user.id))
    ? await proveSecondFactor(deps, caller, proof, ctx)
    : null
  const now = deps.clock.now()
  await deps.db.transaction().execute(async (tx) => {
    if (
      !(await markSessionReauthenticated(tx, caller.user.id, caller.sessionId!, now.toISOString()))
    )
      throw new AppError('UNAUTHORIZED')
    await recordAudit(tx, deps.clock, ctx, {
      action: 'session.reauthenticate',
      actor: caller.user,
      target: { type: 'session', id: caller.sessionId! },
      metadata: { second_factor: secondFactor },
    })
  })
  return { reauthenticated_until: addSeconds(now, REAUTH_WINDOW_SECONDS).toISOString() }
}
