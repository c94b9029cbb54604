/**
 * The second step of a sign-in (docs/API.md#password-sign-in): after the first factor succeeds for
 * a user with MFA, no session is opened; the client gets a single-use `mfa_token` (5 minutes,
 * stored hashed) and completes with `POST /api/auth/mfa/verify`. Wrong codes count 5 per token and
 * 10 per account per 15 minutes.
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import type { Budget } from '../../lib/attempt-budget.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext } from '../../identity/caller.js'
import { issueSignIn, openSession, type SignIn } from '../../identity/session-issuer.js'
import { findUserById, updateUser } from '../users/repo.js'
import type { UserRecord } from '../../identity/user.js'
import {
  consumeChallenge,
  deleteStaleChallenges,
  findLiveChallenge,
  insertChallenge,
} from './repo.js'
import { verifySecondFactor } from './second-factor.js'

const CHALLENGE_TTL_SECONDS = 5 * 60
export const WRONG_CODES_PER_CHALLENGE: Budget = {
  name: 'mfa:challenge',
  limit: 5,
  windowSeconds: CHALLENGE_TTL_SECONDS,
}

export interface MfaChallenge {
  mfaToken: string
  expiresAt: string
}

/**
 * Issues an mfa_token within the caller's transaction. `method`: how the first factor was proven.
 */
export async function createMfaChallenge(
  deps: Deps,
  ex: Executor,
  userId: string,
  method: string,
): Promise<MfaChallenge> {
  const now = deps.clock.now()
  const mfaToken = randomToken(32)
  const expiresAt = addSeconds(now, CHALLENGE_TTL_SECONDS).toISOString()
  await deleteStaleChallenges(ex, userId, now.toISOString())
  await insertChallenge(ex, {
    id: newId(),
    user_id: userId,
    token_hash: sha256Hex(mfaToken),
    method,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  })
  return { mfaToken, expiresAt }
}

async function recordFailure(
  deps: Deps,
  user: UserRecord,
  ctx: RequestContext,
  reason: string,
): Promise<void> {
  await recordAudit(deps.db, deps.clock, ctx, {
    action: 'auth.mfa_verify_failed',
    actor: user,
    target: { type: 'user', id: user.id },
    metadata: { reason },
  })
}

/** Completes a sign-in with a TOTP or backup code; the same 200 as a sign-in without MFA. */
export async function completeMfaSignIn(
  deps: Deps,
  input: { mfa_token: string; code: string },
  ctx: RequestContext,
): Promise<SignIn> {
  const now = deps.clock.now().toISOString()
  const challenge = await findLiveChallenge(deps.db, sha256Hex(input.mfa_token), now)
  const user = challenge === null ? null : await findUserById(deps.db, challenge.user_id)
  if (challenge === null || user === null || user.disabled)
    throw new AppError('MFA_PENDING_INVALID')

  let method: string
  try {
    method = await verifySecondFactor(deps, {
      userId: user.id,
      code: input.code,
      failureStatus: 401,
      extraBudgets: [{ budget: WRONG_CODES_PER_CHALLENGE, subject: challenge.id }],
    })
  } catch (error) {
    if (error instanceof AppError) await recordFailure(deps, user, ctx, error.reason)
    throw error
  }

  const { signedIn, session } = await deps.db.transaction().execute(async (tx) => {
    if (!(await consumeChallenge(tx, challenge.id, deps.clock.now().toISOString())))
      throw new AppError('MFA_PENDING_INVALID')
    const updated =
      (await updateUser(tx, user.id, { last_login_at: deps.clock.now().toISOString() })) ?? user
    const opened = await openSession(deps, tx, user.id, ctx, {
      method: `${challenge.method}+${method}`,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'auth.login',
      actor: updated,
      target: { type: 'user', id: user.id },
      metadata: { method: `${challenge.method}+${method}`, session_id: opened.id },
    })
    return { signedIn: updated, session: opened }
  })
  return issueSignIn(deps, signedIn, session)
}
