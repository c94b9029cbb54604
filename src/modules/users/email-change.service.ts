/**
 * Changing the account's email with proof of the new address (docs/API.md#email-change): the
 * request stores the address as `email_pending` and mails a single-use link to it; the link's token
 * swaps the addresses. The token is 256 random bits, kept only as its SHA-256, valid 24 hours, and
 * a new request replaces the previous one.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError, invalidField } from '../../errors.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { provePasswordOrWindow } from '../../identity/reauth.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { withUserMail } from '../mail/limits.js'
import { assertMailConfigured, sendMail } from '../mail/service.js'
import {
  consumeEmailVerification,
  replaceEmailVerification,
  withdrawEmailVerification,
  type NewEmailVerification,
} from './email-change.repo.js'
import type { ChangeEmailBody, VerifyEmailBody } from './email-change.schemas.js'
import { findUserByEmail, findUserById, updateUser } from './repo.js'
import type { UserRecord } from '../../identity/user.js'
import { emailTakenError, normalizeEmail } from './service.js'

export const EMAIL_VERIFICATION_TTL_SECONDS = 24 * 60 * 60

/**
 * The page of the web app that posts the token to POST /api/users/email/verify
 * (docs/API.md#email-change).
 */
export function verificationLink(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/verify-email?token=${token}`
}

function verificationMail(deps: Deps, token: string): { subject: string; text: string } {
  return {
    subject: 'Confirm your new email address',
    text:
      'Someone, hopefully you, asked to use this address for a Switchboard account.\n\n' +
      `To confirm, open this link within 24 hours:\n${verificationLink(deps, token)}\n\n` +
      'If you did not ask for this, ignore this message: nothing changes.\n',
  }
}

/**
 * Checks run in the contract's order: mail configured (503), managed by a provider (409), same
 * address (400), password (400/429), address taken (409) — the last only after the password, so
 * a stolen session cannot probe which addresses have accounts.
 */
export async function requestEmailChange(
  deps: Deps,
  caller: Caller,
  body: ChangeEmailBody,
  ctx: RequestContext,
): Promise<UserRecord> {
  await assertMailConfigured(deps)
  const user = caller.user
  // The identity provider owns the address of a linked account; a local change would be
  // overwritten.
  if (user.oidc_provider !== null) throw new AppError('EMAIL_MANAGED_BY_PROVIDER')
  const email = normalizeEmail(body.email)
  if (email === user.email) throw invalidField('email', 'is already your email address')
  await provePasswordOrWindow(deps, caller, body.password)
  // The mail caps: taken before anything is stored, given back when nothing was sent.
  return withUserMail(deps, email, () => storeAndMail(deps, user, email, ctx))
}

async function storeAndMail(
  deps: Deps,
  user: Caller['user'],
  email: string,
  ctx: RequestContext,
): Promise<UserRecord> {
  const token = randomToken(32)
  const now = deps.clock.now()
  const verification: NewEmailVerification = {
    id: newId(),
    userId: user.id,
    email,
    tokenHash: sha256Hex(token),
    createdAt: now.toISOString(),
    expiresAt: addSeconds(now, EMAIL_VERIFICATION_TTL_SECONDS).toISOString(),
  }
  const updated = await deps.db.transaction().execute(async (tx) => {
    if ((await findUserByEmail(tx, email)) !== null) throw emailTakenError()
    const changed = await updateUser(tx, user.id, {
      email_pending: email,
      updated_at: verification.createdAt,
    })
    if (changed === null) throw new AppError('UNAUTHORIZED')
    await replaceEmailVerification(tx, verification)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.email_change_requested',
      actor: user,
      target: { type: 'user', id: user.id },
      metadata: { new_email: email },
    })
    return changed
  })

  try {
    await sendMail(deps, { to: email, ...verificationMail(deps, token) })
  } catch (error) {
    // A link nobody received must not stay pending: the client can simply try again.
    await deps.db
      .transaction()
      .execute((tx) => withdrawEmailVerification(tx, verification, deps.clock.now().toISOString()))
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') {
      // The server's reply is for administrators (it may name internal hosts), not for every user.
      deps.logger.warn({ smtp: error.message }, 'the email verification mail could not be sent')
      throw new AppError('UPSTREAM_FAILED', {
        message: 'The verification email could not be sent. Try again later.',
      })
    }
    throw error
  }
  return updated
}

const invalidToken = () => invalidField('token', 'is invalid, expired or already used')

export async function verifyEmailChange(
  deps: Deps,
  body: VerifyEmailBody,
  ctx: RequestContext,
): Promise<UserRecord> {
  const now = deps.clock.now().toISOString()
  const user = await deps.db.transaction().execute(async (tx) => {
    const verification = await consumeEmailVerification(tx, sha256Hex(body.token), now)
    if (verification === null) throw invalidToken()
    const before = await findUserById(tx, verification.user_id)
    // A disabled account keeps its address: the pending change may be an intruder's, the reason it
    // was disabled. The link is spent all the same (the transaction commits), so re-enabling the
    // account does not revive it.
    if (before === null || before.disabled) return null
    // Taken since the request: the whole transaction rolls back and the link stays unused.
    const changed = await updateUser(tx, before.id, {
      email: verification.email,
      email_pending: null,
      updated_at: now,
    }).catch((error: unknown) => {
      throw isUniqueViolation(error) ? emailTakenError() : error
    })
    await deleteUnusedResetLinks(tx, before.id)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.email_verified',
      actor: before,
      target: { type: 'user', id: before.id },
      metadata: { previous_email: before.email, new_email: verification.email },
    })
    return changed
  })
  if (user === null) throw invalidToken()
  return user
}
