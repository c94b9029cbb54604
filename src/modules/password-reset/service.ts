/**
 * Password recovery (section 1): a single-use link that lets a person set a new password
 * without the old one. Promises:
 * - the link's token is 256 random bits, kept only as its SHA-256, valid 30 minutes when mailed
 *   (to the person, or by an administrator) and 24 hours when handed over (an administrator's
 *   copyable link, the operator's `switchboard reset-password`); it is consumed by one conditional
 *   UPDATE, so of two concurrent uses exactly one sets the password;
 * - asking for a link answers the same — status, body and time — whether or not the address has an
 *   account: the answer depends only on the instance (mail configured) and on the address's and
 *   client's budgets; the lookup, the link and the mail happen in the background after answering
 *   (OWASP Forgot Password Cheat Sheet: "return a consistent message … ensure that responses return
 *   in a consistent amount of time");
 * - setting the password ends every session of the account, revokes its API tokens only when asked,
 *   never removes a second factor (NIST SP 800-63B §6.1.2.3: recovery of one factor must not remove
 *   another), spends the account's other links, and is audited (the audit event queues the security
 *   mail, notifications/kinds.ts);
 * - an account that signs in only through an identity provider has no password to reset: its mail
 *   and the reset page say to sign in with the provider.
 */
import type { Deps } from '../../deps.js'
import { AppError } from '../../errors.js'
import type { Budget } from '../../lib/attempt-budget.js'
import { sha256Hex } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { randomToken } from '../../lib/random.js'
import { addSeconds } from '../../lib/time.js'
import { assertAdminProof, type AdminProof } from '../admin/reauth.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { revokeUserSessions } from '../../identity/sessions.repo.js'
import { assertMailConfigured, isMailConfigured, sendMail } from '../mail/service.js'
import { isMfaEnabled } from '../mfa/service.js'
import { countActiveApiTokens } from '../tokens/repo.js'
import { revokeAllApiTokens } from '../../identity/api-tokens.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { findUserByEmail, findUserById, passwordColumns, updateUser } from '../users/repo.js'
import type { UserRecord } from '../../identity/user.js'
import { hashNewPassword, normalizeEmail } from '../users/service.js'
import { providerOnlyMail, resetLinkMail, welcomeMail } from './mails.js'
import {
  consumePasswordReset,
  deletePasswordReset,
  findLivePasswordReset,
  findProviderName,
  insertPasswordReset,
  type ResetVia,
} from './repo.js'

/** A mailed link (the person's own request, or an administrator's "send a reset link"). */
export const MAILED_LINK_TTL_SECONDS = 30 * 60
/** A link handed over by an administrator or printed for the operator. */
export const HANDED_LINK_TTL_SECONDS = 24 * 60 * 60
/**
 * The welcome link of an account created without a password: its person did not ask for it and
 * may read the mail days later, and the account holds nothing yet.
 */
export const WELCOME_LINK_TTL_SECONDS = 7 * 24 * 60 * 60

/**
 * Requests per address: few, since each may mail someone who did not ask; counted per address text,
 * account or not, so the 429 says nothing about accounts. The per-client limit is the route's.
 */
export const RESET_REQUESTS_PER_EMAIL: Budget = {
  name: 'password-reset:email',
  limit: 3,
  windowSeconds: 15 * 60,
}

/** Runs work after the answer has been sent (routes.ts); the service never waits for it. */
export type Background = (task: () => Promise<void>) => void

const NO_CONTEXT: RequestContext = { ip: null, userAgent: null }

/**
 * The page of the web app that reads the token and asks for the new password
 * (docs/API.md#password-reset).
 */
export function resetLink(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/reset-password?token=${token}`
}

/** No password, only an identity provider: nothing to reset. */
function isProviderOnly(user: UserRecord): boolean {
  return !user.has_password && user.oidc_provider !== null
}

async function providerNameOf(deps: Deps, user: UserRecord): Promise<string> {
  return (
    (user.oidc_provider !== null ? await findProviderName(deps.db, user.oidc_provider) : null) ??
    user.oidc_provider ??
    ''
  )
}

export async function getResetAvailability(deps: Deps): Promise<{ by_mail: boolean }> {
  return { by_mail: await isMailConfigured(deps) }
}

/** Creates a link (hashed row and audit event in one transaction); the token is returned once. */
async function issueResetLink(
  deps: Deps,
  user: UserRecord,
  via: ResetVia,
  ctx: RequestContext,
  actor: UserRecord | null,
): Promise<{ id: string; token: string; expiresAt: string }> {
  const token = randomToken(32)
  const now = deps.clock.now()
  const ttl =
    via === 'welcome'
      ? WELCOME_LINK_TTL_SECONDS
      : via === 'admin_link' || via === 'cli'
        ? HANDED_LINK_TTL_SECONDS
        : MAILED_LINK_TTL_SECONDS
  const reset = {
    id: newId(),
    userId: user.id,
    tokenHash: sha256Hex(token),
    via,
    createdAt: now.toISOString(),
    expiresAt: addSeconds(now, ttl).toISOString(),
  }
  await deps.db.transaction().execute(async (tx) => {
    await insertPasswordReset(tx, reset)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.password_reset_requested',
      actor,
      target: { type: 'user', id: user.id },
      metadata: { via, expires_at: reset.expiresAt },
    })
  })
  return { id: reset.id, token, expiresAt: reset.expiresAt }
}

/** Mails a fresh link to the account; on failure the link is withdrawn and the error rethrown. */
async function mailResetLink(
  deps: Deps,
  user: UserRecord,
  via: ResetVia,
  ctx: RequestContext,
  actor: UserRecord | null,
): Promise<string> {
  const link = await issueResetLink(deps, user, via, ctx, actor)
  try {
    await sendMail(deps, {
      to: user.email,
      ...resetLinkMail(user.language, resetLink(deps, link.token), MAILED_LINK_TTL_SECONDS / 60),
    })
  } catch (error) {
    // A link nobody received must not stay usable.
    await deletePasswordReset(deps.db, link.id)
    throw error
  }
  return link.expiresAt
}

/**
 * POST /api/auth/password-reset. Refuses up front only for reasons that do not depend on the
 * address having an account (no mail on the instance: 503; the address's budget spent: 429), then
 * answers; the rest runs in the background.
 */
export async function requestPasswordReset(
  deps: Deps,
  input: { email: string },
  ctx: RequestContext,
  background: Background,
): Promise<{ link_valid_minutes: number }> {
  await assertMailConfigured(deps)
  const email = normalizeEmail(input.email)
  // Reserved and kept (the "attempt" never succeeds): every request counts, not only failures.
  await deps.budgets.attempt(
    [{ budget: RESET_REQUESTS_PER_EMAIL, subject: email }],
    async () => null,
  )
  background(() => deliverRequestedReset(deps, email, ctx))
  return { link_valid_minutes: MAILED_LINK_TTL_SECONDS / 60 }
}

/** The background half of a person's request: what to mail, if anything, to this address. */
export async function deliverRequestedReset(
  deps: Deps,
  email: string,
  ctx: RequestContext,
): Promise<void> {
  const user = await findUserByEmail(deps.db, email)
  if (user === null || user.disabled) {
    // Recorded like a failed sign-in: an administrator sees addresses being probed.
    await recordAudit(deps.db, deps.clock, ctx, {
      action: 'auth.password_reset_unknown',
      actor: null,
      ...(user !== null && { target: { type: 'user', id: user.id } }),
      metadata: { email, outcome: user === null ? 'no_account' : 'disabled' },
    })
    return
  }
  try {
    if (isProviderOnly(user)) {
      const provider = await providerNameOf(deps, user)
      await recordAudit(deps.db, deps.clock, ctx, {
        action: 'user.password_reset_requested',
        actor: null,
        target: { type: 'user', id: user.id },
        metadata: { via: 'self', outcome: 'provider_only' },
      })
      await sendMail(deps, {
        to: user.email,
        ...providerOnlyMail(user.language, provider, `${deps.config.publicUrl}/login`),
      })
      return
    }
    await mailResetLink(deps, user, 'self', ctx, null)
  } catch (error) {
    // Nobody waits for this answer; the server's reply is for the log only.
    deps.logger.warn(
      {
        reason: error instanceof AppError ? error.reason : 'INTERNAL',
        smtp: error instanceof Error ? error.message : null,
      },
      'a password reset mail could not be sent',
    )
  }
}

export interface ResetLinkView {
  email: string
  /** A welcome link: the account's first password, not a reset. */
  welcome: boolean
  provider_only: boolean
  provider_name: string | null
  second_factor: boolean
  api_tokens: number
  expires_at: string
}

function invalidLink(): AppError {
  return new AppError('RESET_LINK_INVALID')
}

async function liveResetOf(deps: Deps, token: string) {
  const reset = await findLivePasswordReset(
    deps.db,
    sha256Hex(token),
    deps.clock.now().toISOString(),
  )
  if (reset === null) throw invalidLink()
  const user = await findUserById(deps.db, reset.user_id)
  if (user === null || user.disabled) throw invalidLink()
  return { reset, user }
}

/**
 * POST /api/auth/password-reset/inspect: what the reset page needs to say before asking anything.
 */
export async function inspectPasswordReset(
  deps: Deps,
  input: { token: string },
): Promise<ResetLinkView> {
  const { reset, user } = await liveResetOf(deps, input.token)
  const providerOnly = isProviderOnly(user)
  return {
    email: user.email,
    welcome: reset.via === 'welcome',
    provider_only: providerOnly,
    provider_name: user.oidc_provider === null ? null : await providerNameOf(deps, user),
    second_factor: await isMfaEnabled(deps.db, user.id),
    api_tokens: await countActiveApiTokens(deps.db, user.id, deps.clock.now().toISOString()),
    expires_at: reset.expires_at,
  }
}

export interface ResetOutcome {
  sessions_revoked: number
  api_tokens_revoked: number
  api_tokens_kept: number
  second_factor: boolean
}

/**
 * POST /api/auth/password-reset/complete. The link is checked (one indexed lookup) before the
 * password is hashed, so unknown tokens cost no hashing; the hash is computed outside the
 * transaction (on SQLite an open transaction holds the only connection), and the transaction
 * consumes the link conditionally — the loser of a race rolls back with RESET_LINK_INVALID.
 */
export async function completePasswordReset(
  deps: Deps,
  input: { token: string; new_password: string; revoke_api_tokens?: boolean | undefined },
  ctx: RequestContext,
): Promise<ResetOutcome> {
  const { reset, user } = await liveResetOf(deps, input.token)
  if (isProviderOnly(user)) throw new AppError('PASSWORD_MANAGED_BY_PROVIDER')
  const hash = await hashNewPassword(deps, input.new_password, user.email, 'new_password')
  return deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    // The account's row is written first: concurrent uses of different links of one account then
    // queue on it (PostgreSQL) and the later one finds its link deleted, instead of each holding
    // its own link's row while waiting for the other's (a deadlock, answered 500).
    await updateUser(tx, user.id, { ...passwordColumns(hash, now), updated_at: now })
    if (!(await consumePasswordReset(tx, reset.id, now))) throw invalidLink()
    const sessionsRevoked = await revokeUserSessions(tx, user.id, null, now)
    const tokensRevoked =
      input.revoke_api_tokens === true ? await revokeAllApiTokens(tx, user.id, now) : 0
    const tokensKept = await countActiveApiTokens(tx, user.id, now)
    await deleteUnusedResetLinks(tx, user.id)
    // Read before the audit append, which holds the audit tree's head until the commit.
    const secondFactor = await isMfaEnabled(tx, user.id)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.password_reset',
      actor: user,
      target: { type: 'user', id: user.id },
      metadata: {
        via: reset.via,
        sessions_revoked: sessionsRevoked,
        tokens_revoked: tokensRevoked,
      },
    })
    return {
      sessions_revoked: sessionsRevoked,
      api_tokens_revoked: tokensRevoked,
      api_tokens_kept: tokensKept,
      second_factor: secondFactor,
    }
  })
}

async function targetOf(deps: Deps, userId: string): Promise<UserRecord> {
  const user = await findUserById(deps.db, userId)
  if (user === null) throw new AppError('NOT_FOUND', { message: 'No such user.' })
  if (isProviderOnly(user)) throw new AppError('PASSWORD_MANAGED_BY_PROVIDER')
  return user
}

/**
 * POST /api/admin/users/{id}/password-reset/mail: the link goes to the account's own address, so it
 * gives the administrator nothing to sign in with and asks no proof (unlike the copyable link).
 */
export async function mailResetLinkAsAdmin(
  deps: Deps,
  caller: Caller,
  userId: string,
  ctx: RequestContext,
): Promise<{ expires_at: string }> {
  await assertMailConfigured(deps)
  const user = await targetOf(deps, userId)
  try {
    return { expires_at: await mailResetLink(deps, user, 'admin_mail', ctx, caller.user) }
  } catch (error) {
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') {
      deps.logger.warn({ smtp: error.message }, 'a password reset mail could not be sent')
      throw new AppError('UPSTREAM_FAILED', {
        message: 'The password reset email could not be sent; no link was created.',
      })
    }
    throw error
  }
}

/**
 * POST /api/admin/users/{id}/password-reset/link: for an instance without mail. Whoever holds the
 * link can set the password, so it takes the same proof as setting one (admin/reauth.ts).
 */
export async function createResetLinkAsAdmin(
  deps: Deps,
  caller: Caller,
  userId: string,
  proof: AdminProof,
  ctx: RequestContext,
): Promise<{ url: string; expires_at: string }> {
  const user = await targetOf(deps, userId)
  await assertAdminProof(deps, caller, userId, proof, 'POST /api/users/me/password')
  const link = await issueResetLink(deps, user, 'admin_link', ctx, caller.user)
  return { url: resetLink(deps, link.token), expires_at: link.expiresAt }
}

/**
 * `switchboard reset-password <email>`: for an operator locked out of the console. Null: no such
 * user.
 */
export async function createResetLinkForOperator(
  deps: Deps,
  email: string,
): Promise<{ url: string; expires_at: string; email: string } | null> {
  const user = await findUserByEmail(deps.db, normalizeEmail(email))
  if (user === null) return null
  if (isProviderOnly(user)) throw new AppError('PASSWORD_MANAGED_BY_PROVIDER')
  const link = await issueResetLink(deps, user, 'cli', NO_CONTEXT, null)
  return { url: resetLink(deps, link.token), expires_at: link.expiresAt, email: user.email }
}

export interface Welcome {
  mail: 'sent' | 'not_configured' | 'failed'
  /** The link to pass on when it was not mailed; null when the mail went out. */
  link: string | null
  expires_at: string
}

/**
 * The welcome of an account an administrator created without a password: a set-your-password
 * link, valid 7 days, mailed when SMTP works — otherwise (or when the server refuses the mail)
 * returned for the administrator to pass on, as an invitation's link is.
 */
export async function welcomeNewUser(
  deps: Deps,
  caller: Caller,
  user: UserRecord,
  ctx: RequestContext,
): Promise<Welcome> {
  const link = await issueResetLink(deps, user, 'welcome', ctx, caller.user)
  const url = resetLink(deps, link.token)
  if (!(await isMailConfigured(deps)))
    return { mail: 'not_configured', link: url, expires_at: link.expiresAt }
  try {
    await sendMail(deps, {
      to: user.email,
      ...welcomeMail(user.language, url, WELCOME_LINK_TTL_SECONDS / 86400),
    })
    return { mail: 'sent', link: null, expires_at: link.expiresAt }
  } catch (error) {
    if (
      error instanceof AppError &&
      (error.reason === 'UPSTREAM_FAILED' || error.reason === 'NOT_CONFIGURED')
    ) {
      deps.logger.warn({ smtp: error.message }, 'a welcome mail could not be sent')
      return { mail: 'failed', link: url, expires_at: link.expiresAt }
    }
    throw error
  }
}
