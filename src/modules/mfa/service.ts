/**
 * The MFA life cycle of docs/API.md#two-factor-authentication: status, enrollment (begin → confirm,
 * or cancel), disable, backup-code regeneration, and the administrator's reset. Enabling and
 * disabling sign out the user's other sessions; every state change is audited without secrets or
 * codes.
 */
import { createRequire } from 'node:module'
import type QRCodeLibrary from 'qrcode'
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { AppError, invalidField } from '../../errors.js'
import { encrypt, decrypt } from '../../lib/crypto.js'
import { newId } from '../../lib/ids.js'
import { addSeconds } from '../../lib/time.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { provePasswordOrWindow, verifyCurrentPassword } from '../../identity/reauth.js'
import { revokeUserSessions } from '../../identity/sessions.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { revokeAllApiTokens } from '../../identity/api-tokens.repo.js'
import { findUserById } from '../users/repo.js'
import { backupCodeSelector, generateBackupCodes } from './backup-codes.js'
import {
  deleteMfaState,
  deletePendingEnrollment,
  findPendingEnrollment,
  findTotpFactor,
  hasSecondFactor,
  insertTotpFactor,
  replaceBackupCodes,
  takePendingEnrollment,
  upsertPendingEnrollment,
} from './repo.js'
import { WRONG_CODES_PER_ACCOUNT, totpSecretContext, verifySecondFactor } from './second-factor.js'
import { matchTotpStep, newTotpSecret, otpauthUrl } from './totp.js'
import { enrollmentRequired } from '../../identity/mfa-policy.js'

// The QR code library is needed only to begin an enrollment: loaded then
// (docs/decisions/0002-start-up-footprint.md).
const require = createRequire(import.meta.url)
let qrCodeLibrary: typeof QRCodeLibrary | undefined
function qrCodes(): typeof QRCodeLibrary {
  return (qrCodeLibrary ??= require('qrcode') as typeof QRCodeLibrary)
}

const PENDING_TTL_SECONDS = 10 * 60

export function pendingSecretContext(userId: string): string {
  return `mfa_pending.secret:${userId}`
}

export interface MfaStatus {
  enabled: boolean
  enrolled_at?: string
  pending: boolean
  backup_codes_remaining: number
  enrollment_required: boolean
}

/**
 * The caller's MFA status, from the state their authentication query read with the credential
 * (the status costs no query of its own; the route declares `readsMfaStatus`). That read
 * is the request's own, so it shows every change committed before the request, on any instance.
 */
export function getMfaStatus(deps: Deps, caller: Caller): MfaStatus {
  const { status } = caller.mfa
  if (status === null)
    throw new Error('getMfaStatus needs a route that declares config.readsMfaStatus')
  const enrolledAt = status.totpEnabledAt ?? undefined
  const enabled = enrolledAt !== undefined
  const pending =
    !enabled &&
    status.pendingExpiresMs !== null &&
    status.pendingExpiresMs > deps.clock.now().getTime()
  // One object shape either way (no spread): an undefined enrolled_at is left out of the JSON.
  return {
    enabled,
    enrolled_at: enrolledAt,
    pending,
    backup_codes_remaining: enabled ? status.backupCodesRemaining : 0,
    enrollment_required: enrollmentRequired(caller),
  }
}

/**
 * Whether the user has a second factor — TOTP or a passkey — so a sign-in asks for it. The single
 * source of truth (its SQL is secondFactorExists in repo.ts); use it for any "is MFA on" question.
 */
export async function isMfaEnabled(ex: Executor, userId: string): Promise<boolean> {
  return hasSecondFactor(ex, userId)
}

/** Whether the authenticator app (TOTP) is on: the state this module's life cycle manages. */
async function isTotpEnabled(ex: Executor, userId: string): Promise<boolean> {
  return (await findTotpFactor(ex, userId)) !== null
}

async function assertNotEnabled(deps: Deps, userId: string): Promise<void> {
  if (await isTotpEnabled(deps.db, userId)) throw new AppError('MFA_ALREADY_ENABLED')
}

async function assertEnabled(deps: Deps, userId: string): Promise<void> {
  if (!(await isTotpEnabled(deps.db, userId))) throw new AppError('MFA_NOT_ENABLED')
}

/** Hashes a fresh set of backup codes (outside any transaction: argon2 is slow by design). */
async function newBackupCodeSet(deps: Deps): Promise<{
  codes: string[]
  rows: Array<{ id: string; code_hash: string; selector: string; created_at: string }>
}> {
  const codes = generateBackupCodes()
  const createdAt = deps.clock.now().toISOString()
  const canonical = codes.map((code) => code.replace('-', '').toUpperCase())
  const hashes = await Promise.all(canonical.map((code) => deps.passwords.hash(code)))
  return {
    codes,
    rows: hashes.map((code_hash, i) => ({
      id: newId(),
      code_hash,
      selector: backupCodeSelector(canonical[i]!),
      created_at: createdAt,
    })),
  }
}

export interface EnrollmentStart {
  secret: string
  otpauth_url: string
  qr_svg: string
  expires_at: string
}

export async function beginEnrollment(
  deps: Deps,
  caller: Caller,
  password: string | undefined,
  ctx: RequestContext,
): Promise<EnrollmentStart> {
  await assertNotEnabled(deps, caller.user.id)
  await provePasswordOrWindow(deps, caller, password)
  const secret = newTotpSecret()
  const now = deps.clock.now()
  const expiresAt = addSeconds(now, PENDING_TTL_SECONDS).toISOString()
  await deps.db.transaction().execute(async (tx) => {
    await upsertPendingEnrollment(tx, {
      user_id: caller.user.id,
      secret_encrypted: encrypt(
        deps.secrets.encryptionKey,
        secret,
        pendingSecretContext(caller.user.id),
      ),
      created_at: now.toISOString(),
      expires_at: expiresAt,
    })
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.enroll_begin',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
    })
  })
  const url = otpauthUrl(secret, deps.config.mfaIssuer, caller.user.email)
  return {
    secret,
    otpauth_url: url,
    qr_svg: await qrCodes().toString(url, { type: 'svg', margin: 1 }),
    expires_at: expiresAt,
  }
}

/**
 * Checks the first code against the pending secret; on success MFA is on and the codes are shown
 * once.
 */
export async function confirmEnrollment(
  deps: Deps,
  caller: Caller,
  code: string,
  ctx: RequestContext,
  options: { revokeApiTokens?: boolean } = {},
): Promise<{ backup_codes: string[] }> {
  const userId = caller.user.id
  await assertNotEnabled(deps, userId)
  const now = deps.clock.now()
  const pending = await findPendingEnrollment(deps.db, userId, now.toISOString())
  if (pending === null) throw new AppError('MFA_NO_PENDING')

  const charges = [{ budget: WRONG_CODES_PER_ACCOUNT, subject: userId }]
  const secret = decrypt(
    deps.secrets.encryptionKey,
    pending.secret_encrypted,
    pendingSecretContext(userId),
  )
  // Reserved before the code is checked, given back on success.
  const step = await deps.budgets.attempt(charges, async () => matchTotpStep(secret, code, now))
  if (step === null) {
    await recordAudit(deps.db, deps.clock, ctx, {
      action: 'mfa.enroll_confirm_failed',
      actor: caller.user,
      target: { type: 'user', id: userId },
    })
    throw new AppError('INVALID_CODE')
  }

  const backup = await newBackupCodeSet(deps)
  await deps.db.transaction().execute(async (tx) => {
    // Taking the pending row is the atomic step: of two confirmations only one finds it.
    if (!(await takePendingEnrollment(tx, userId, pending.secret_encrypted)))
      throw new AppError('MFA_NO_PENDING')
    if (await isTotpEnabled(tx, userId)) throw new AppError('MFA_ALREADY_ENABLED')
    // The confirming code's step is recorded, so the same code cannot also complete a sign-in.
    await insertTotpFactor(
      tx,
      userId,
      encrypt(deps.secrets.encryptionKey, secret, totpSecretContext(userId)),
      now.toISOString(),
      step,
    )
    await replaceBackupCodes(tx, userId, backup.rows)
    await deleteUnusedResetLinks(tx, userId)
    const revoked = await revokeUserSessions(tx, userId, caller.sessionId, now.toISOString())
    // A token taken before the account was secured need not survive it.
    const tokensRevoked =
      options.revokeApiTokens === true ? await revokeAllApiTokens(tx, userId, now.toISOString()) : 0
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.enable',
      actor: caller.user,
      target: { type: 'user', id: userId },
      metadata: { sessions_revoked: revoked, tokens_revoked: tokensRevoked },
    })
  })
  return { backup_codes: backup.codes }
}

export async function cancelEnrollment(
  deps: Deps,
  caller: Caller,
  ctx: RequestContext,
): Promise<void> {
  await assertNotEnabled(deps, caller.user.id)
  await deps.db.transaction().execute(async (tx) => {
    await deletePendingEnrollment(tx, caller.user.id)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.enroll_cancel',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
    })
  })
}

interface TrustedInput {
  code: string
  password?: string | undefined
}

/**
 * The trust both disable and regenerate need, whoever calls (a session inside its
 * re-authentication window, or a token): MFA on, the password (if any), then a valid code.
 */
async function proveControl(deps: Deps, caller: Caller, input: TrustedInput): Promise<void> {
  await assertEnabled(deps, caller.user.id)
  await verifyCurrentPassword(deps, caller.user.id, input.password)
  await verifySecondFactor(deps, { userId: caller.user.id, code: input.code, failureStatus: 400 })
}

export async function disableMfa(
  deps: Deps,
  caller: Caller,
  input: TrustedInput,
  ctx: RequestContext,
): Promise<void> {
  await proveControl(deps, caller, input)
  await deps.db.transaction().execute(async (tx) => {
    await deleteMfaState(tx, caller.user.id)
    await deleteUnusedResetLinks(tx, caller.user.id)
    const revoked = await revokeUserSessions(
      tx,
      caller.user.id,
      caller.sessionId,
      deps.clock.now().toISOString(),
    )
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.disable',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
      metadata: { sessions_revoked: revoked },
    })
  })
}

export async function regenerateBackupCodes(
  deps: Deps,
  caller: Caller,
  input: TrustedInput,
  ctx: RequestContext,
): Promise<{ backup_codes: string[] }> {
  await proveControl(deps, caller, input)
  const backup = await newBackupCodeSet(deps)
  await deps.db.transaction().execute(async (tx) => {
    if (!(await isTotpEnabled(tx, caller.user.id))) throw new AppError('MFA_NOT_ENABLED')
    await replaceBackupCodes(tx, caller.user.id, backup.rows)
    await deleteUnusedResetLinks(tx, caller.user.id)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.backup_regenerate',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
    })
  })
  return { backup_codes: backup.codes }
}

/**
 * Account deletion's (and an administrator's proof's) extra factor when TOTP is on: a current code
 * (docs/API.md#the-current-user). A passkey cannot be typed into a form, so an account whose only
 * second factor is a passkey proves itself with the password here (docs/API.md#passkeys).
 */
export async function assertSecondFactorIfEnabled(
  deps: Deps,
  userId: string,
  code: string | undefined,
): Promise<void> {
  if (!(await isTotpEnabled(deps.db, userId))) return
  if (code === undefined)
    throw invalidField('code', 'is required while two-factor authentication is enabled')
  await verifySecondFactor(deps, { userId, code, failureStatus: 400 })
}

/**
 * An administrator's (or the operator's) reset for a user who lost their authenticator. Every
 * session of the user ends with it: a session that was opened with the second
 * factor must not outlive its removal.
 */
export async function resetMfa(
  deps: Deps,
  actor: Actor | null,
  userId: string,
  ctx: RequestContext,
  via: 'admin' | 'cli',
): Promise<void> {
  if ((await findUserById(deps.db, userId)) === null)
    throw new AppError('NOT_FOUND', { message: 'No such user.' })
  await deps.db.transaction().execute(async (tx) => {
    const removed = await deleteMfaState(tx, userId)
    await deleteUnusedResetLinks(tx, userId)
    const now = deps.clock.now().toISOString()
    const revoked = await revokeUserSessions(tx, userId, null, now)
    // The reset answers a lost or stolen factor; the account's API tokens go with its sessions.
    const tokensRevoked = await revokeAllApiTokens(tx, userId, now)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'mfa.reset',
      actor,
      target: { type: 'user', id: userId },
      metadata: {
        via,
        had_state: removed > 0,
        sessions_revoked: revoked,
        tokens_revoked: tokensRevoked,
      },
    })
  })
}
