/** Test data built through the real services and endpoints, never a shared seed. */
import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { insertSession } from '../../src/identity/sessions.repo.js'
import { newId } from '../../src/lib/ids.js'
import { insertNewUser, prepareNewUser } from '../../src/modules/users/service.js'
import type { UserRecord } from '../../src/identity/user.js'
import type { TestContext } from './app.js'
import { totpCode } from './rfc6238.js'
import { isAdminPermission, TOKEN_PERMISSIONS } from '../../src/identity/permissions.js'

export const DEFAULT_PASSWORD = 'a sound passphrase 42'

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(5).toString('hex')}@example.com`
}

export interface TestUser {
  user: UserRecord
  email: string
  password: string | null
}

export async function createUser(
  t: TestContext,
  options: { email?: string; name?: string; password?: string | null; isAdmin?: boolean } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail()
  const password = options.password === undefined ? DEFAULT_PASSWORD : options.password
  const row = await prepareNewUser(t.deps, {
    email,
    name: options.name ?? 'Test User',
    password,
    isAdmin: options.isAdmin ?? false,
  })
  const user = await insertNewUser(t.deps.db, row)
  return { user, email: user.email, password }
}

export interface SignedIn {
  token: string
  csrfToken: string
  response: LightMyRequestResponse
}

export function cookieValue(response: LightMyRequestResponse, name: string): string | undefined {
  return response.cookies.find((c) => c.name === name)?.value
}

export async function login(
  t: TestContext,
  email: string,
  password: string,
  remoteAddress = '127.0.0.1',
): Promise<SignedIn> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
  })
  if (response.statusCode !== 200)
    throw new Error(`login failed: ${response.statusCode} ${response.body}`)
  return { token: response.json().token, csrfToken: cookieValue(response, 'csrf_token')!, response }
}

/** A user with a session: the usual starting point of an authenticated test. */
export async function createSignedInUser(
  t: TestContext,
  options: Parameters<typeof createUser>[1] = {},
): Promise<TestUser & SignedIn> {
  const created = await createUser(t, {
    ...options,
    password: options.password ?? DEFAULT_PASSWORD,
  })
  return { ...created, ...(await login(t, created.email, created.password!)) }
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` }
}

/** A request as `user` (their bearer token), with `payload` as its JSON body when given. */
export function requestAs(
  t: TestContext,
  user: SignedIn,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) {
  return t.app.inject({
    method,
    url,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload }),
  })
}

/** A session for a user who cannot log in with a password (as an OIDC sign-in would create). */
export async function openSessionFor(t: TestContext, userId: string): Promise<string> {
  const now = t.clock.now()
  const expires = new Date(now.getTime() + 3600_000)
  const id = newId()
  await insertSession(t.deps.db, {
    id,
    userId,
    createdAt: now.toISOString(),
    expiresAt: expires.toISOString(),
    userAgent: null,
    ip: null,
  })
  return t.deps.accessTokens.issue({ sub: userId, sid: id }, now, expires)
}

/**
 * Closes the re-authentication window of every session of the user, as if their sign-in
 * were more than 10 minutes old: what a stolen session looks like to a test of the proofs.
 */
export async function closeReauthenticationWindows(t: TestContext, userId: string): Promise<void> {
  await t.deps.db
    .updateTable('sessions')
    .set({ reauthenticated_at: null })
    .where('user_id', '=', userId)
    .execute()
}

export interface MfaEnrolled {
  secret: string
  backupCodes: string[]
}

/**
 * Enrolls the signed-in user in TOTP through the API, computing the code from the secret it
 * returned, then moves the test clock one step on so the next code is not a replay.
 */
export async function enableMfa(
  t: TestContext,
  signedIn: { token: string; password: string | null },
  confirmOptions: { revoke_api_tokens?: boolean } = {},
): Promise<MfaEnrolled> {
  const begin = await t.app.inject({
    method: 'POST',
    url: '/api/auth/mfa/enroll/begin',
    headers: bearer(signedIn.token),
    payload: signedIn.password === null ? {} : { password: signedIn.password },
  })
  if (begin.statusCode !== 200)
    throw new Error(`enroll/begin failed: ${begin.statusCode} ${begin.body}`)
  const secret: string = begin.json().secret
  const confirm = await t.app.inject({
    method: 'POST',
    url: '/api/auth/mfa/enroll/confirm',
    headers: bearer(signedIn.token),
    payload: { code: totpCode(secret, t.clock.now()), ...confirmOptions },
  })
  if (confirm.statusCode !== 200)
    throw new Error(`enroll/confirm failed: ${confirm.statusCode} ${confirm.body}`)
  t.clock.advance(30)
  return { secret, backupCodes: confirm.json().backup_codes }
}

/** Password login that expects the MFA step; returns the mfa_token. */
export async function loginForMfaToken(
  t: TestContext,
  email: string,
  password: string,
): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
  })
  if (response.statusCode !== 200 || response.json().mfa_required !== true)
    throw new Error(`expected an MFA challenge: ${response.body}`)
  return response.json().mfa_token
}

export function verifyMfa(t: TestContext, mfaToken: string, code: string, app = t.app) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/mfa/verify',
    payload: { mfa_token: mfaToken, code },
  })
}

export interface ApiTokenOptions {
  /** Default: every permission the owner may grant (the admin.* ones only for an administrator). */
  permissions?: string[]
  organization_boundary?: 'personal' | 'selected' | 'all'
  organization_ids?: string[]
  expires_in_days?: number
  expires_at?: string
}

/**
 * A personal API token for the signed-in user; by default as broad as the owner may make it
 * (boundary: all).
 */
export async function createApiTokenFor(
  t: TestContext,
  sessionToken: string,
  name = 'test token',
  options: ApiTokenOptions = {},
): Promise<{ id: string; token: string }> {
  let permissions = options.permissions
  if (permissions === undefined) {
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: bearer(sessionToken),
    })
    permissions = TOKEN_PERMISSIONS.filter(
      (permission) => me.json().is_admin === true || !isAdminPermission(permission),
    )
  }
  const payload = { name, organization_boundary: 'all', ...options, permissions }
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: bearer(sessionToken),
    payload,
  })
  if (response.statusCode !== 201)
    throw new Error(`token creation failed: ${response.statusCode} ${response.body}`)
  return { id: response.json().id, token: response.json().token }
}

/**
 * A users row to insert straight into the database (thousands at once, no password, no session): a
 * person who merely exists.
 */
export function bareUserRow(id: string, at: string) {
  return {
    id,
    email: `${id}@example.com`,
    name: id,
    user_key: id,
    is_admin: false,
    disabled: false,
    language: 'en',
    theme: 'auto',
    ai_suggestions_enabled: true,
    created_at: at,
    updated_at: at,
  }
}

/** The operations that ask for the administrator's proof when they change where trust lies. */
const ADMIN_PROOF_URL =
  /^\/api\/(admin\/settings\/smtp|admin\/scim\/credentials|oidc-providers(\/(?!check)[^/?]+)?)$/

/**
 * The body with the acting administrator's proof (the test default password) added, for the
 * operations that ask for it (SMTP destination, SCIM credentials, identity providers) when `url`
 * names one. A body that is not an object, is empty or names its own proof is left as it is.
 */
export function withAdminProof<T>(payload: T, url?: string): T {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload
  if (url !== undefined && !ADMIN_PROOF_URL.test(url)) return payload
  if ('current_password' in payload || Object.keys(payload).length === 0) return payload
  return { ...payload, current_password: DEFAULT_PASSWORD }
}
