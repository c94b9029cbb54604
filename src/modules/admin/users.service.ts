/**
 * Administration of users (docs/API.md#administering-users). The instance keeps an active
 * administrator: every change that could take the last one away (demotion, disabling, deletion)
 * locks the administrator rows and checks inside the same transaction (409 LAST_ADMIN).
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError } from '../../errors.js'
import { toPage, type Page } from '../../lib/pagination.js'
import { recordAudit, recordAudits } from '../audit/service.js'
import type { RequestContext, Caller } from '../../identity/caller.js'
import { revokeUserSessions } from '../../identity/sessions.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { revokeAllApiTokens } from '../../identity/api-tokens.repo.js'
import {
  findUserById,
  lockActiveAdminIds,
  passwordColumns,
  updateUser as updateUserRow,
} from '../users/repo.js'
import {
  deleteUserKeepingInvariants,
  emailTakenError,
  hashNewPassword,
  insertNewUser,
  normalizeEmail,
  prepareNewUser,
} from '../users/service.js'
import { assertAdminProof } from './reauth.js'
import { findAdminUser, listAdminUsers, type AdminUserRecord } from './users.repo.js'
import type { AdminUserQuery, CreateAdminUserBody, UpdateAdminUserBody } from './users.schemas.js'

function userNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such user.' })
}

export async function listUsers(deps: Deps, query: AdminUserQuery): Promise<Page<AdminUserRecord>> {
  const window = pageWindow(query)
  const rows = await listAdminUsers(deps.db, query.q ?? null, window)
  return toPage(
    rows,
    window.limit,
    (row) => row,
    (row) => [row.created_at, row.id],
  )
}

export async function getUser(deps: Deps, userId: string): Promise<AdminUserRecord> {
  const user = await findAdminUser(deps.db, userId)
  if (user === null) throw userNotFound()
  return user
}

/** A new account; without a password the user signs in through OIDC, or after a reset. */
export async function createUser(
  deps: Deps,
  caller: Caller,
  input: CreateAdminUserBody,
  ctx: RequestContext,
): Promise<AdminUserRecord> {
  // Making a new administrator grants a privilege like promoting one.
  if (input.is_admin === true)
    await assertAdminProof(
      deps,
      caller,
      '',
      { current_password: input.current_password, code: input.code },
      '',
    )
  const row = await prepareNewUser(deps, {
    email: input.email,
    name: input.name,
    password: input.password ?? null,
    isAdmin: input.is_admin ?? false,
  })
  return deps.db.transaction().execute(async (tx) => {
    const user = await insertNewUser(tx, row)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'admin.user_create',
      actor: caller.user,
      target: { type: 'user', id: user.id },
      metadata: { email: user.email, is_admin: user.is_admin, has_password: user.has_password },
    })
    return { ...user, mfa_enabled: false }
  })
}

/**
 * Applies any of the administrable fields. Disabling ends every session of the user at once and
 * revokes their API tokens; so does setting a password.
 * Changing credentials or privileges (password, email, is_admin, disabled) needs the acting
 * administrator's session and fresh proof, and is refused on their own account.
 */
export async function updateUser(
  deps: Deps,
  caller: Caller,
  userId: string,
  patch: UpdateAdminUserBody,
  ctx: RequestContext,
): Promise<AdminUserRecord> {
  const before = await findUserById(deps.db, userId)
  if (before === null) throw userNotFound()
  const email = patch.email === undefined ? undefined : normalizeEmail(patch.email)
  const { password: _password, current_password, code, ...fields } = patch
  const changesCredentials =
    patch.password !== undefined ||
    (email !== undefined && email !== before.email) ||
    (patch.is_admin !== undefined && patch.is_admin !== before.is_admin) ||
    (patch.disabled !== undefined && patch.disabled !== before.disabled)
  if (changesCredentials) {
    const selfService =
      patch.password !== undefined
        ? 'POST /api/users/me/password'
        : email !== undefined && email !== before.email
          ? 'POST /api/users/me/email'
          : 'another administrator must change is_admin or disabled on your account'
    await assertAdminProof(deps, caller, userId, { current_password, code }, selfService)
  }
  // Hashed before the transaction: argon2 is slow by design, and SQLite has one connection.
  const passwordHash =
    patch.password === undefined
      ? undefined
      : await hashNewPassword(deps, patch.password, email ?? before.email, 'password')

  return deps.db.transaction().execute(async (tx) => {
    // The lock comes before the read, so the administrator flags checked are the current ones.
    const admins =
      patch.is_admin === false || patch.disabled === true ? await lockActiveAdminIds(tx) : null
    const user = await findUserById(tx, userId)
    if (user === null) throw userNotFound()
    if (admins !== null && user.is_admin && !user.disabled && !admins.some((id) => id !== userId)) {
      throw new AppError('LAST_ADMIN', { details: 'Promote another administrator first.' })
    }
    const now = deps.clock.now().toISOString()
    try {
      await updateUserRow(tx, userId, {
        ...fields,
        ...(email !== undefined && { email }),
        ...(passwordHash !== undefined && passwordColumns(passwordHash, now)),
        updated_at: now,
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTakenError()
      throw error
    }
    // Never the caller's own account here (assertAdminProof), so every session of the user ends.
    const endsSessions = patch.disabled === true || passwordHash !== undefined
    const sessionsRevoked = endsSessions ? await revokeUserSessions(tx, userId, null, now) : 0
    // A password set by an administrator (a lost or taken-over account) ends the API tokens too,
    // and so does disabling: re-enabling must not bring back tokens made before (as SCIM's
    // deactivation revokes them).
    const tokensRevoked =
      passwordHash !== undefined || patch.disabled === true
        ? await revokeAllApiTokens(tx, userId, now)
        : 0
    if (changesCredentials) await deleteUnusedResetLinks(tx, userId)
    // Read before the audit append, which holds the audit tree's head until the commit.
    const updated = (await findAdminUser(tx, userId))!
    const target = { type: 'user', id: userId }
    await recordAudits(tx, deps.clock, ctx, [
      {
        action: 'admin.user_update',
        actor: caller.user,
        target,
        metadata: {
          fields: Object.keys(fields)
            .concat(patch.password !== undefined ? ['password'] : [])
            .sort(),
          sessions_revoked: sessionsRevoked,
          tokens_revoked: tokensRevoked,
        },
      },
      ...(patch.disabled !== undefined && patch.disabled !== user.disabled
        ? [
            {
              action: patch.disabled ? 'admin.user_disable' : 'admin.user_enable',
              actor: caller.user,
              target,
            },
          ]
        : []),
    ])
    return updated
  })
}

/**
 * Deletes another user's account; your own goes through DELETE /api/users/me (409 SELF_DELETION).
 */
export async function deleteUser(
  deps: Deps,
  caller: Caller,
  userId: string,
  ctx: RequestContext,
): Promise<void> {
  if (userId === caller.user.id)
    throw new AppError('SELF_DELETION', {
      details: 'Use DELETE /api/users/me for your own account.',
    })
  await deps.db.transaction().execute(async (tx) => {
    const user = await findUserById(tx, userId)
    if (user === null) throw userNotFound()
    await deleteUserKeepingInvariants(tx, user)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'admin.user_delete',
      actor: caller.user,
      target: { type: 'user', id: userId },
      metadata: { email: user.email, is_admin: user.is_admin },
    })
  })
}
