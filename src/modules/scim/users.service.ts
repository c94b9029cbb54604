/**
 * SCIM Users over Switchboard's accounts. The account rules are the administrators' ones, reused
 * from the users module: the same creation (prepareNewUser/insertNewUser), the same deletion
 * (deleteUserKeepingInvariants: never the last active administrator, never an organization's only
 * owner), and deactivation refuses the last active administrator just as an administrator's
 * disabling does. What SCIM adds:
 *
 * - `active: false` deprovisions — the account is disabled, every session ends and every API token
 *   is revoked in the same transaction, so the next request with any of them is refused on every
 *   instance (authentication reads the rows). `active: true` restores sign-in; tokens stay revoked.
 * - A password sent by the identity provider (Okta's create) becomes the local password when it
 *   passes the same rules as everyone's (else 400 invalidValue). SCIM sets a password only on an
 *   account it provisioned or adopted, never on one with a second factor (400 mutability): a SCIM
 *   credential must not be a way to take over a local account.
 * - An existing account with the new user's email is 409 uniqueness, unless the administrator set
 *   `scim.adopt_existing_accounts_by_email` to true: then it is linked (201, audited).
 * - Every change is audited with the actor "SCIM (<credential name>)".
 */
import type { Deps } from '../../deps.js'
import type { Executor } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { normalizePassword, passwordProblem } from '../../lib/password-policy.js'
import { isMfaEnabled } from '../mfa/service.js'
import { recordAudit, type Actor } from '../audit/service.js'
import type { AuditMetadata } from '../audit/fact-keys.js'
import { revokeUserSessions } from '../../identity/sessions.repo.js'
import { deleteUnusedResetLinks } from '../../identity/reset-links.repo.js'
import { findSettingRow } from '../settings/repo.js'
import { revokeAllApiTokens } from '../../identity/api-tokens.repo.js'
import { lockActiveAdminIds, passwordColumns, updateUser, findUserById } from '../users/repo.js'
import { findPasswordHash, type UserRecord } from '../../identity/user.js'
import { deleteUserKeepingInvariants, insertNewUser, prepareNewUser } from '../users/service.js'
import { conflict, notFound, ScimError } from './errors.js'
import type { ScimActor } from './http.js'
import { filterParam, matches, type Filter } from './filter.js'
import { listWindow, pagedListResponse, projection, type ListWindow } from './list.js'
import { applyPatch } from './patch.js'
import { fromScimUser, toScimUser, visibleTo, type UserModel } from './users.mapping.js'
import {
  findScimUser,
  findScimUserByExternalId,
  findScimUserByUserName,
  findUniquenessHolders,
  countScimUsers,
  hasScimFields,
  pageScimUsers,
  scanScimUsers,
  upsertScimFields,
  textFold,
  userFilterToSql,
  userIdByEmail,
  type ScimUserRow,
  type UserWhere,
} from './users.repo.js'

export const ADOPT_SETTING = 'scim.adopt_existing_accounts_by_email'
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

export interface ListQuery {
  filter?: unknown
  startIndex?: unknown
  count?: unknown
  attributes?: unknown
  excludedAttributes?: unknown
}

function auditActor(actor: ScimActor): Actor {
  return { id: `scim:${actor.credential.id}`, email: `SCIM (${actor.credential.name})` }
}

/** Accounts read per query when a filter is evaluated in memory: bounds memory, not time. */
const SCAN_BATCH = 5000

/**
 * A list of Users, filtered, counted and paged in SQL (users.repo.ts userFilterToSql takes every
 * attribute a User renders); `userName eq`, `externalId eq` and `id eq` — what Okta and Entra send
 * before every create — are one indexed lookup. Only a value path over `meta` is evaluated in
 * memory, over the accounts a batch at a time after narrowing by the translatable terms of a
 * top-level `and`; only the page asked for is kept.
 */
async function selectUsers(
  deps: Deps,
  scope: string,
  filter: Filter | null,
  window: ListWindow,
  baseUrl: string,
): Promise<{ total: number; page: ScimUserRow[] }> {
  const offset = window.startIndex - 1
  if (filter?.op === 'eq' && typeof filter.compValue === 'string') {
    const attr = filter.attrPath
      .toLowerCase()
      .replace(/^urn:ietf:params:scim:schemas:core:2\.0:user:/, '')
    const lookup =
      attr === 'username'
        ? findScimUserByUserName(deps.db, filter.compValue)
        : attr === 'externalid'
          ? findScimUserByExternalId(deps.db, filter.compValue, scope)
          : attr === 'id'
            ? findScimUser(deps.db, filter.compValue)
            : null
    if (lookup !== null) {
      const row = await lookup
      const all = row === null ? [] : [row]
      return { total: all.length, page: all.slice(offset, offset + window.count) }
    }
  }
  const fold = await textFold(deps.db, deps.database.engine)
  const where = filter === null ? null : userFilterToSql(filter, baseUrl, fold, scope)
  if (filter === null || where !== null) {
    const total = await countScimUsers(deps.db, where)
    const page =
      window.count === 0 || offset >= total
        ? []
        : await pageScimUsers(deps.db, where, offset, window.count)
    return { total, page }
  }
  // Evaluated in memory: narrowed by whatever part of a top-level `and` SQL can take.
  const narrowing =
    filter.op === 'and'
      ? filter.filters
          .map((part) => userFilterToSql(part, baseUrl, fold, scope))
          .filter((part) => part !== null)
      : []
  const narrow: UserWhere | null =
    narrowing.length === 0 ? null : (eb) => eb.and(narrowing.map((part) => part(eb)))
  const page: ScimUserRow[] = []
  let total = 0
  let after: ScimUserRow | null = null
  for (;;) {
    const batch = await scanScimUsers(deps.db, narrow, after, SCAN_BATCH)
    for (const row of batch) {
      if (!matches(filter, toScimUser(visibleTo(row, scope), baseUrl))) continue
      if (total >= offset && page.length < window.count) page.push(row)
      total++
    }
    if (batch.length < SCAN_BATCH) break
    after = batch.at(-1)!
  }
  return { total, page }
}

export async function listScimUsers(
  deps: Deps,
  actor: ScimActor,
  query: ListQuery,
  baseUrl: string,
) {
  const window = listWindow(query)
  const project = projection(query)
  const filter = filterParam(query.filter)
  const scope = actor.credential.id
  const { total, page } = await selectUsers(deps, scope, filter, window, baseUrl)
  return pagedListResponse(
    page.map((row) => toScimUser(visibleTo(row, scope), baseUrl)),
    total,
    window,
    project,
  )
}

async function loadUser(ex: Executor, id: string): Promise<ScimUserRow> {
  const row = await findScimUser(ex, id)
  if (row === null) throw notFound('No such User.')
  return row
}

/** The User as the actor's credential sees it. */
async function renderUser(deps: Deps, actor: ScimActor, id: string, baseUrl: string) {
  return toScimUser(visibleTo(await loadUser(deps.db, id), actor.credential.id), baseUrl)
}

export async function getScimUser(
  deps: Deps,
  actor: ScimActor,
  id: string,
  query: ListQuery,
  baseUrl: string,
) {
  return projection(query)(await renderUser(deps, actor, id, baseUrl))
}

async function adoptsExistingAccounts(deps: Deps): Promise<boolean> {
  const row = await findSettingRow(deps.db, ADOPT_SETTING)
  return row !== null && JSON.parse(row.value) === true
}

/** The stored hash of a provider's password, which passes the password rules (see header). */
async function hashProvidedPassword(deps: Deps, password: string, email: string): Promise<string> {
  const normalized = normalizePassword(password)
  const problem = passwordProblem(normalized, email)
  if (problem !== null) throw new ScimError(400, `password ${problem}.`, 'invalidValue')
  return deps.passwords.hash(normalized)
}

/**
 * A password is SCIM's to set only on an account SCIM provisioned or adopted (it has SCIM fields)
 * and that has no second factor.
 */
async function assertPasswordSettable(ex: Executor, userId: string): Promise<void> {
  if (!(await hasScimFields(ex, userId)))
    throw new ScimError(
      400,
      'SCIM sets a password only on an account it provisioned or adopted.',
      'mutability',
    )
  if (await isMfaEnabled(ex, userId))
    throw new ScimError(
      400,
      'The password of an account with a second factor is changed in Switchboard, not through SCIM.',
      'mutability',
    )
}

/**
 * What SCIM stores beside the account. The externalId is the writing credential's; a credential
 * that sends none clears only its own, never one another credential set (which it does not see).
 */
function fieldsOf(model: UserModel, actor: ScimActor, current: ScimUserRow | null) {
  const othersExternalId =
    model.externalId === null &&
    current !== null &&
    current.external_id_scope !== null &&
    current.external_id_scope !== actor.credential.id
  return {
    user_name: model.userName,
    ...(othersExternalId
      ? { external_id: current.external_id, external_id_scope: current.external_id_scope }
      : {
          external_id: model.externalId,
          external_id_scope: model.externalId === null ? null : actor.credential.id,
        }),
    given_name: model.givenName,
    family_name: model.familyName,
    formatted_name: model.formattedName,
    employee_number: model.employeeNumber,
    department: model.department,
    manager_id: model.managerId,
  }
}

/**
 * A write's unique-index violation, as SCIM's 409 uniqueness naming the request's userName (the
 * request log shows it).
 */
async function uniquely<T>(userName: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (
      isUniqueViolation(error) ||
      (error instanceof AppError && error.reason === 'ALREADY_EXISTS')
    ) {
      throw conflict('Another user has this userName, email or externalId.', userName)
    }
    throw error
  }
}

async function assertUserNameFree(
  ex: Executor,
  actor: ScimActor,
  model: UserModel,
  exceptId: string | null,
): Promise<void> {
  const external =
    model.externalId === null ? null : { id: model.externalId, scope: actor.credential.id }
  const holders = await findUniquenessHolders(ex, model.userName, external)
  if (holders.userName !== null && holders.userName !== exceptId)
    throw conflict('A user with this userName already exists.', model.userName)
  if (holders.externalId !== null && holders.externalId !== exceptId)
    throw conflict('A user with this externalId already exists.', model.userName)
}

export async function createScimUser(
  deps: Deps,
  actor: ScimActor,
  body: unknown,
  baseUrl: string,
): Promise<Record<string, unknown>> {
  const model = fromScimUser(body)
  const existingId = await userIdByEmail(deps.db, model.email)
  if (existingId !== null) return adoptExisting(deps, actor, existingId, model, baseUrl)
  const row = await prepareNewUser(deps, {
    email: model.email,
    name: model.name,
    password: null,
    isAdmin: false,
  })
  if (model.password !== null)
    Object.assign(
      row,
      passwordColumns(
        await hashProvidedPassword(deps, model.password, model.email),
        row.created_at,
      ),
    )
  row.disabled = !model.active
  const created = await uniquely(model.userName, () =>
    deps.db.transaction().execute(async (tx) => {
      await assertUserNameFree(tx, actor, model, null)
      const user = await insertNewUser(tx, row)
      const fields = fieldsOf(model, actor, null)
      await upsertScimFields(tx, user.id, fields)
      await recordAudit(tx, deps.clock, actor.ctx, {
        action: 'scim.user_create',
        actor: auditActor(actor),
        target: { type: 'user', id: user.id },
        metadata: {
          email: user.email,
          active: model.active,
          has_password: model.password !== null,
        },
      })
      return createdRow(user, fields)
    }),
  )
  return toScimUser(visibleTo(created, actor.credential.id), baseUrl)
}

/** A new account as findScimUser reads it back: what its two inserts wrote and returned. */
function createdRow(user: UserRecord, fields: ReturnType<typeof fieldsOf>): ScimUserRow {
  const { id, email, name, disabled, is_admin, created_at, updated_at } = user
  return { id, email, name, disabled, is_admin, created_at, updated_at, ...fields }
}

/** "Adopt existing accounts by email": links the account to the provider instead of a 409. */
async function adoptExisting(
  deps: Deps,
  actor: ScimActor,
  userId: string,
  model: UserModel,
  baseUrl: string,
): Promise<Record<string, unknown>> {
  if (!(await adoptsExistingAccounts(deps)))
    throw conflict('A user with this email already exists.', model.userName)
  await uniquely(model.userName, () =>
    deps.db.transaction().execute(async (tx) => {
      // Already provisioned through SCIM: a second create is a duplicate, not an adoption. An
      // administrator's account is never adopted (as OIDC never links one by email).
      const existing = await findUserById(tx, userId)
      if (existing === null || existing.is_admin || (await hasScimFields(tx, userId)))
        throw conflict('A user with this email already exists.', model.userName)
      await assertUserNameFree(tx, actor, model, userId)
      await writeUser(deps, tx, actor, userId, { ...model, password: null }, null)
      await recordAudit(tx, deps.clock, actor.ctx, {
        action: 'scim.user_adopt',
        actor: auditActor(actor),
        target: { type: 'user', id: userId },
        metadata: { email: model.email },
      })
    }),
  )
  return renderUser(deps, actor, userId, baseUrl)
}

/**
 * Stores a whole User (PUT, and PATCH after its operations are applied) inside the caller's
 * transaction, deprovisioning or restoring when `active` changes.
 */
async function writeUser(
  deps: Deps,
  tx: Executor,
  actor: ScimActor,
  userId: string,
  model: UserModel,
  passwordHash: string | null,
): Promise<void> {
  const deactivating = !model.active
  const admins = deactivating ? await lockActiveAdminIds(tx) : null
  const user = await findUserById(tx, userId)
  if (user === null) throw notFound('No such User.')
  if (admins !== null && user.is_admin && !user.disabled && !admins.some((id) => id !== userId)) {
    throw new ScimError(409, 'The last active administrator cannot be deactivated.', 'mutability')
  }
  // An administrator's sign-in credentials are not the identity provider's to change: a new email
  // (then a password reset to it) or password would hand the provider's credential an
  // administrator's account. Their profile and `active` are still provisioned.
  if (user.is_admin && (model.email !== user.email || passwordHash !== null)) {
    throw new ScimError(
      400,
      "An administrator's email and password are changed in Switchboard, not through SCIM.",
      'mutability',
    )
  }
  if (passwordHash !== null) await assertPasswordSettable(tx, userId)
  const now = deps.clock.now().toISOString()
  const current = await findScimUser(tx, userId)
  await updateUser(tx, userId, {
    email: model.email,
    name: model.name,
    disabled: !model.active,
    ...(passwordHash !== null && passwordColumns(passwordHash, now)),
    updated_at: now,
  })
  await upsertScimFields(tx, userId, fieldsOf(model, actor, current))
  if (deactivating || user.disabled || passwordHash !== null || model.email !== user.email)
    await deleteUnusedResetLinks(tx, userId)
  const changedActive = user.disabled === model.active
  if (changedActive && deactivating) {
    const sessions = await revokeUserSessions(tx, userId, null, now)
    const tokens = await revokeAllApiTokens(tx, userId, now)
    await recordAudit(tx, deps.clock, actor.ctx, {
      action: 'scim.user_deactivate',
      actor: auditActor(actor),
      target: { type: 'user', id: userId },
      metadata: { sessions_revoked: sessions, tokens_revoked: tokens },
    })
  } else if (changedActive) {
    await recordAudit(tx, deps.clock, actor.ctx, {
      action: 'scim.user_activate',
      actor: auditActor(actor),
      target: { type: 'user', id: userId },
    })
  }
  if (passwordHash !== null) {
    // A new password ends the user's sessions, as an administrator's password change does.
    await revokeUserSessions(tx, userId, null, now)
  }
}

/**
 * Hashes a sent password only when it differs from the stored one (Okta may resend it with every
 * update).
 */
async function changedPasswordHash(
  deps: Deps,
  userId: string,
  password: string | null,
  email: string,
): Promise<string | null> {
  if (password === null) return null
  const stored = await findPasswordHash(deps.db, userId)
  if (
    stored !== null &&
    stored !== '' &&
    (await deps.passwords.verify(stored, normalizePassword(password)))
  )
    return null
  return hashProvidedPassword(deps, password, email)
}

async function replaceWith(
  deps: Deps,
  actor: ScimActor,
  id: string,
  model: UserModel,
  action: string,
  metadata: AuditMetadata,
  baseUrl: string,
) {
  await loadUser(deps.db, id)
  const passwordHash = await changedPasswordHash(deps, id, model.password, model.email)
  await uniquely(model.userName, () =>
    deps.db.transaction().execute(async (tx) => {
      await assertUserNameFree(tx, actor, model, id)
      await writeUser(deps, tx, actor, id, model, passwordHash)
      await recordAudit(tx, deps.clock, actor.ctx, {
        action,
        actor: auditActor(actor),
        target: { type: 'user', id },
        metadata: { ...metadata, password_changed: passwordHash !== null },
      })
    }),
  )
  return renderUser(deps, actor, id, baseUrl)
}

export async function replaceScimUser(
  deps: Deps,
  actor: ScimActor,
  id: string,
  body: unknown,
  baseUrl: string,
) {
  const current = await loadUser(deps.db, id)
  return replaceWith(
    deps,
    actor,
    id,
    fromScimUser(body, !current.disabled),
    'scim.user_replace',
    {},
    baseUrl,
  )
}

export async function patchScimUser(
  deps: Deps,
  actor: ScimActor,
  id: string,
  body: unknown,
  baseUrl: string,
) {
  const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const schemas = request.schemas
  if (Array.isArray(schemas) && schemas.length > 0 && !schemas.includes(PATCH_SCHEMA)) {
    throw new ScimError(400, `A PATCH body names the schema ${PATCH_SCHEMA}.`, 'invalidSyntax')
  }
  const operations = request.Operations ?? request.operations
  const current = await renderUser(deps, actor, id, baseUrl)
  const patched = applyPatch(current, operations)
  // A remove of `active` (or a replace with null) would leave it unassigned: refused, as in
  // fromScimUser.
  if (patched.active === undefined)
    throw new ScimError(400, 'active cannot be removed; send true or false.', 'invalidValue')
  const ops = (operations as Array<{ op: string; path?: string }>).map((o) =>
    `${o.op.toLowerCase()} ${o.path ?? '(no path)'}`.slice(0, 120),
  )
  return replaceWith(
    deps,
    actor,
    id,
    fromScimUser(patched),
    'scim.user_patch',
    { operations: ops },
    baseUrl,
  )
}

export async function deleteScimUser(deps: Deps, actor: ScimActor, id: string): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const user = await findUserById(tx, id)
    if (user === null) throw notFound('No such User.')
    await deleteUserKeepingInvariants(tx, user)
    await recordAudit(tx, deps.clock, actor.ctx, {
      action: 'scim.user_delete',
      actor: auditActor(actor),
      target: { type: 'user', id },
      metadata: { email: user.email, is_admin: user.is_admin },
    })
  })
}
