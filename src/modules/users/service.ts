/**
 * The current user's account (docs/API.md#the-current-user) and the creation of users, shared by
 * first-run setup, the create-admin command and (later) administration.
 */
import type { Deps } from '../../deps.js'
import type { Executor, NewUserRow } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError, invalidField } from '../../errors.js'
import { newId, newUserKey } from '../../lib/ids.js'
import { normalizePassword, passwordProblemDetail } from '../../lib/password-policy.js'
import { recordAudit } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { isReauthenticated, provePasswordOrWindow } from '../../identity/reauth.js'
import { isSessionLive, revokeUserSessions } from '../../identity/sessions.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { revokeAllApiTokens } from '../../identity/api-tokens.repo.js'
import { assertSecondFactorIfEnabled } from '../mfa/service.js'
import { assertNoOrganizationLosesItsLastOwner } from '../organizations/ownership.js'
import {
  deleteUser,
  findPasswordStatus,
  insertUser,
  lockActiveAdminIds,
  lockUserCollectionsAndLinks,
  passwordColumns,
  updateUser,
  type PasswordStatus,
} from './repo.js'
import type { UserRecord } from '../../identity/user.js'
import type { ChangePasswordBody, DeleteMeBody, UpdateMeBody } from './schemas.js'

/** Emails are compared and stored trimmed and lower-cased (docs/API.md#conventions). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** Applies the password policy and hashes the password; `field` names it in the 400 details. */
export async function hashNewPassword(
  deps: Deps,
  password: string,
  email: string | null,
  field: string,
): Promise<string> {
  const normalized = normalizePassword(password)
  const problem = passwordProblemDetail(normalized, email)
  if (problem !== null)
    throw invalidField(
      field,
      problem.message,
      problem.code,
      problem.limit === undefined ? {} : { limit: problem.limit },
    )
  return deps.passwords.hash(normalized)
}

export interface NewUserInput {
  email: string
  name: string
  password: string | null
  isAdmin: boolean
}

/**
 * Validates and hashes outside any transaction — argon2 takes tens of milliseconds, and on SQLite
 * an open transaction holds the only connection.
 */
export async function prepareNewUser(deps: Deps, input: NewUserInput): Promise<NewUserRow> {
  const email = normalizeEmail(input.email)
  const passwordHash =
    input.password === null ? null : await hashNewPassword(deps, input.password, email, 'password')
  const now = deps.clock.now().toISOString()
  return {
    id: newId(),
    email,
    name: input.name,
    user_key: newUserKey(),
    password_hash: passwordHash,
    password_changed_at: passwordHash === null ? null : now,
    is_admin: input.isAdmin,
    disabled: false,
    language: 'en',
    theme: 'auto',
    ai_suggestions_enabled: true,
    created_at: now,
    updated_at: now,
  }
}

export function emailTakenError(): AppError {
  return new AppError('ALREADY_EXISTS', {
    message: 'A user with this email already exists.',
    details: 'email',
  })
}

/** Inserts a prepared user; a taken email is 409 ALREADY_EXISTS. */
export async function insertNewUser(ex: Executor, row: NewUserRow): Promise<UserRecord> {
  try {
    return await insertUser(ex, row)
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTakenError()
    throw error
  }
}

/** `switchboard create-admin`: an administrator created by the operator, audited as such. */
export async function createAdministrator(
  deps: Deps,
  input: Omit<NewUserInput, 'isAdmin'>,
): Promise<UserRecord> {
  const row = await prepareNewUser(deps, { ...input, isAdmin: true })
  return deps.db.transaction().execute(async (tx) => {
    const user = await insertNewUser(tx, row)
    await recordAudit(
      tx,
      deps.clock,
      { ip: null, userAgent: null },
      {
        action: 'user.create',
        actor: null,
        target: { type: 'user', id: user.id },
        metadata: { via: 'cli', is_admin: true },
      },
    )
    return user
  })
}

export async function updateCurrentUser(
  deps: Deps,
  caller: Caller,
  patch: UpdateMeBody,
  ctx: RequestContext,
): Promise<UserRecord> {
  return deps.db.transaction().execute(async (tx) => {
    const user = await updateUser(tx, caller.user.id, {
      ...patch,
      updated_at: deps.clock.now().toISOString(),
    })
    if (user === null) throw new AppError('NOT_FOUND')
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.update',
      actor: caller.user,
      target: { type: 'user', id: user.id },
      metadata: { fields: Object.keys(patch).sort() },
    })
    return user
  })
}

/** The Security page's password row. */
export async function getPasswordStatus(deps: Deps, caller: Caller): Promise<PasswordStatus> {
  const status = await findPasswordStatus(deps.db, caller.user.id)
  if (status === null) throw new AppError('NOT_FOUND')
  return status
}

/**
 * Sets a new password and signs out every other session (docs/API.md#the-current-user); with
 * `revoke_api_tokens`, every API token too.
 */
export async function changePassword(
  deps: Deps,
  caller: Caller,
  input: ChangePasswordBody,
  ctx: RequestContext,
): Promise<void> {
  await provePasswordOrWindow(deps, caller, input.current_password)
  const hash = await hashNewPassword(deps, input.new_password, caller.user.email, 'new_password')
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    await updateUser(tx, caller.user.id, { ...passwordColumns(hash, now), updated_at: now })
    // After the account's row: a reset that committed first ended this session (this change then
    // loses), and one that comes later finds its link gone.
    if (caller.sessionId !== null && !(await isSessionLive(tx, caller.sessionId, now)))
      throw new AppError('UNAUTHORIZED')
    await deleteUnusedResetLinks(tx, caller.user.id)
    const revoked = await revokeUserSessions(tx, caller.user.id, caller.sessionId, now)
    const tokensRevoked =
      input.revoke_api_tokens === true ? await revokeAllApiTokens(tx, caller.user.id, now) : 0
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.password_change',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
      metadata: { sessions_revoked: revoked, tokens_revoked: tokensRevoked },
    })
  })
}

/**
 * Deletes a user inside the given transaction, keeping what must outlive any one account: the last
 * active administrator (409 LAST_ADMIN; the administrator rows stay locked until the transaction
 * ends) and the only owner of an organization (409 LAST_OWNER).
 */
export async function deleteUserKeepingInvariants(tx: Executor, user: UserRecord): Promise<void> {
  if (user.is_admin && !user.disabled) {
    const admins = await lockActiveAdminIds(tx)
    if (!admins.some((id) => id !== user.id)) {
      throw new AppError('LAST_ADMIN', {
        details: 'Promote another administrator before deleting this account.',
      })
    }
  }
  await assertNoOrganizationLosesItsLastOwner(tx, user.id)
  await lockUserCollectionsAndLinks(tx, user.id)
  await deleteUser(tx, user.id)
}

/**
 * Deletes the caller's account after re-authentication (password, and a second-factor code when
 * MFA is on — or the session's re-authentication window); the last active administrator stays.
 */
export async function deleteCurrentUser(
  deps: Deps,
  caller: Caller,
  input: DeleteMeBody,
  ctx: RequestContext,
): Promise<void> {
  await provePasswordOrWindow(deps, caller, input.password)
  // Inside the re-authentication window the code may be left out; a code sent is checked.
  if (input.code !== undefined || !isReauthenticated(deps, caller))
    await assertSecondFactorIfEnabled(deps, caller.user.id, input.code)
  await deps.db.transaction().execute(async (tx) => {
    await deleteUserKeepingInvariants(tx, caller.user)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'user.delete',
      actor: caller.user,
      target: { type: 'user', id: caller.user.id },
      metadata: { via: 'self' },
    })
  })
}
