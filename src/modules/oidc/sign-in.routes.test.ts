/**
 * OIDC sign-in end to end against a real OpenID provider in the test process: the provider list,
 * the redirect to the provider, account resolution (by sub, by verified email, creation, refusal),
 * the second factor, disabled providers and users, and provider failures.
 */
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encrypt } from '../../lib/crypto.js'
import { createOidcClient } from './client.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  cookieValue,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  uniqueEmail,
  verifyMfa,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import {
  beginOidcAttempt,
  callbackUrlFor,
  createProvider,
  errorCodeOf,
  PUBLIC_URL,
  sendCallback,
  sessionTokenOf,
  signInWithOidc,
} from '../../../test/helpers/oidc-flow.js'
import {
  OIDC_CLIENT_ID,
  startOidcProvider,
  type OidcProviderStandIn,
} from '../../../test/helpers/oidc-provider.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import {
  OIDC_CLIENT_SECRET,
  OTHER_OIDC_CLIENT_SECRET,
  scanResponsesForSecrets,
} from '../../../test/helpers/secret-scan.js'

const t = useTestApp()
scanResponsesForSecrets(t, [OIDC_CLIENT_SECRET, OTHER_OIDC_CLIENT_SECRET])

const KEYS = ['acme', 'closed', 'admins', 'thin', 'broken', 'gone']
let idp: OidcProviderStandIn
let thinIdp: OidcProviderStandIn
let admin: TestUser & SignedIn
// Provider views from the wire; the tests assert their fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const providers: Record<string, Record<string, any>> = {}

beforeAll(async () => {
  const redirectUris = KEYS.map(callbackUrlFor)
  idp = await startOidcProvider({ redirectUris, claimsInIdToken: true })
  thinIdp = await startOidcProvider({ redirectUris })
  admin = await createSignedInUser(t, { isAdmin: true })
  providers.acme = await createProvider(t, admin.token, idp, {
    provider_key: 'acme',
    name: 'Acme SSO',
    auto_create_users: true,
  })
  // `closed` is trusted to link accounts by email (off by default, see
  // test/security/oidc-identity.test.ts).
  providers.closed = await createProvider(t, admin.token, idp, {
    provider_key: 'closed',
    name: 'Closed',
    auto_create_users: false,
    trust_email: true,
  })
  providers.admins = await createProvider(t, admin.token, idp, {
    provider_key: 'admins',
    name: 'Admins',
    auto_create_users: true,
    default_role: 'admin',
  })
  providers.thin = await createProvider(t, admin.token, thinIdp, {
    provider_key: 'thin',
    name: 'Thin tokens',
    auto_create_users: true,
  })
})
afterAll(async () => {
  await idp?.close()
  await thinIdp?.close()
})

const me = async (token: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })).json()
const patchProvider = (id: string, payload: object) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/oidc-providers/${id}`,
    headers: bearer(admin.token),
    payload,
  })
const userByEmail = (email: string) =>
  t.deps.db
    .selectFrom('users')
    .select(['id', 'email', 'oidc_provider', 'oidc_sub', 'disabled'])
    .where('email', '=', email)
    .executeTakeFirst()
const auditOf = (action: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['actor_id', 'target_id', 'metadata'])
    .where('action', '=', action)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .execute()

let nextSub = 0
/** A fresh account at the provider. */
function account(
  claims: { email?: string; email_verified?: boolean | string; name?: string },
  standIn = idp,
): string {
  const sub = `sub-${++nextSub}-${Date.now()}`
  standIn.accounts.set(sub, claims)
  return sub
}

describe('GET /api/auth/providers', () => {
  it('lists the enabled providers by key for a login page, without credentials', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/providers' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      items: ['acme', 'admins', 'closed', 'thin'].map((key) => ({
        provider_key: key,
        name: providers[key]!.name,
        login_url: `${PUBLIC_URL}/api/auth/oidc/${key}/login`,
      })),
      next_cursor: null,
    })
    const page = (await t.app.inject({ method: 'GET', url: '/api/auth/providers?limit=3' })).json()
    expect(page.items.map((p: { provider_key: string }) => p.provider_key)).toEqual([
      'acme',
      'admins',
      'closed',
    ])
    const rest = (
      await t.app.inject({ method: 'GET', url: `/api/auth/providers?cursor=${page.next_cursor}` })
    ).json()
    expect(rest).toEqual({
      items: [expect.objectContaining({ provider_key: 'thin' })],
      next_cursor: null,
    })
  })
})

describe('GET /api/auth/oidc/{provider_key}/login', () => {
  it("302 to the provider's authorization endpoint with PKCE (S256), state and nonce, and a short-lived state cookie", async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/login' })
    expect(response.statusCode).toBe(302)
    const location = new URL(String(response.headers.location))
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`)
    const params = Object.fromEntries(location.searchParams)
    expect(params).toEqual({
      response_type: 'code',
      client_id: OIDC_CLIENT_ID,
      redirect_uri: `${PUBLIC_URL}/api/auth/oidc/acme/callback`,
      scope: 'openid email profile',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    })
    expect(params.state).not.toBe(params.nonce)

    const cookie = response.cookies.find((c) => c.name === 'oidc_state')!
    expect(cookie).toMatchObject({
      path: '/api/auth/oidc/',
      httpOnly: true,
      sameSite: 'Lax',
      maxAge: 600,
    })
    // PUBLIC_URL is http here; test/security/oidc-sign-in.test.ts checks https
    expect(cookie.secure).toBeFalsy()
    // The cookie carries this attempt's state and nonce and the verifier behind the challenge.
    const sealed = JSON.parse(
      Buffer.from(cookie.value.split('.')[0]!, 'base64url').toString('utf8'),
    )
    expect(sealed).toMatchObject({ k: 'acme', s: params.state, n: params.nonce })
    expect(createHash('sha256').update(sealed.v).digest('base64url')).toBe(params.code_challenge)
    expect(response.body).toBe('')
  })

  it('sends every attempt fresh values', async () => {
    const states = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/login' })
      states.add(new URL(String(response.headers.location)).searchParams.get('state')!)
    }
    expect(states.size).toBe(3)
  })

  it('an unknown provider key redirects to the login page with PROVIDER_NOT_FOUND, setting no cookie', async () => {
    for (const key of ['nope', 'ACME', 'a'.repeat(100), '%E2%9C%93']) {
      const response = await t.app.inject({ method: 'GET', url: `/api/auth/oidc/${key}/login` })
      expect(errorCodeOf(response), key).toBe('PROVIDER_NOT_FOUND')
      expect(response.headers['set-cookie'], key).toBeUndefined()
    }
  })
})

describe('signing in', () => {
  it('creates the user on the first sign-in and signs them in: session cookies and a 302 to the app', async () => {
    const email = uniqueEmail('first')
    const sub = account({ email: email.toUpperCase(), email_verified: true, name: 'Fiona First' })
    const response = await signInWithOidc(t, idp, 'acme', sub)
    const token = sessionTokenOf(response)
    const csrf = cookieValue(response, 'csrf_token')
    expect(csrf).toBeTruthy()
    const cleared = response.cookies.find((c) => c.name === 'oidc_state')!
    expect(cleared).toMatchObject({ value: '', maxAge: 0, path: '/api/auth/oidc/' })

    const user = await me(token)
    expect(user).toMatchObject({
      email,
      name: 'Fiona First',
      is_admin: false,
      has_password: false,
      oidc_provider: 'acme',
      oidc_sub: sub,
    })
    // The cookie session is a full session: it can read its CSRF token like a password sign-in.
    const csrfResponse = await t.app.inject({
      method: 'GET',
      url: '/api/auth/csrf',
      cookies: { token },
    })
    expect(csrfResponse.json()).toEqual({ csrf_token: csrf })

    const [created] = await auditOf('user.create')
    expect(created).toMatchObject({ actor_id: user.id, target_id: user.id })
    expect(JSON.parse(created!.metadata)).toEqual({
      via: 'oidc',
      provider_key: 'acme',
      is_admin: false,
    })
    const [signedIn] = await auditOf('auth.login')
    expect(signedIn!.actor_id).toBe(user.id)
    expect(JSON.parse(signedIn!.metadata)).toMatchObject({ method: 'acme' })
    const row = await t.deps.db
      .selectFrom('users')
      .select('last_login_at')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow()
    expect(row.last_login_at).not.toBeNull()
  })

  it('finds the user by sub on the next sign-in, even after their email changed at the provider (and follows it)', async () => {
    const email = uniqueEmail('second')
    const sub = account({ email, email_verified: true, name: 'Sam Second' })
    const first = await me(sessionTokenOf(await signInWithOidc(t, idp, 'acme', sub)))

    const changed = uniqueEmail('changed')
    idp.accounts.set(sub, { email: changed, email_verified: true, name: 'Sam Renamed' })
    const again = await me(sessionTokenOf(await signInWithOidc(t, idp, 'acme', sub)))
    expect(again.id).toBe(first.id)
    expect(again.email).toBe(changed)
    expect(again.name).toBe('Sam Second') // the name is the user's own once the account exists
    const [event] = await auditOf('user.oidc_email_update')
    expect(JSON.parse(event!.metadata)).toEqual({
      provider_key: 'acme',
      previous_email: email,
      new_email: changed,
    })

    // An unverified or taken address is not followed; the sign-in still succeeds.
    const other = await createUser(t)
    for (const claims of [
      { email: uniqueEmail(), email_verified: false },
      { email: other.email, email_verified: true },
      {},
    ]) {
      idp.accounts.set(sub, claims)
      expect((await me(sessionTokenOf(await signInWithOidc(t, idp, 'acme', sub)))).email).toBe(
        changed,
      )
    }
  })

  it('two first sign-ins of one person at once end in one account, both signed in', async () => {
    const email = uniqueEmail('twice')
    idp.loginAs = account({ email, email_verified: true })
    const attempts = [
      await beginOidcAttempt(t, idp, 'acme'),
      await beginOidcAttempt(t, idp, 'acme'),
    ]
    const responses = await Promise.all(
      attempts.map((a) => sendCallback(t, a.callbackUrl, a.stateCookie)),
    )
    const ids = await Promise.all(
      responses.map(async (response) => (await me(sessionTokenOf(response))).id),
    )
    expect(ids[0]).toBe(ids[1])
    const rows = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('oidc_sub', '=', idp.loginAs)
      .execute()
    expect(rows).toEqual([{ id: ids[0] }])
  })

  it('links an existing account by a verified email (auto-creation not needed); its password keeps working', async () => {
    const existing = await createUser(t, { email: uniqueEmail('linked') })
    const sub = account({ email: existing.email, email_verified: true })
    const user = await me(sessionTokenOf(await signInWithOidc(t, idp, 'closed', sub)))
    expect(user).toMatchObject({
      id: existing.user.id,
      oidc_provider: 'closed',
      oidc_sub: sub,
      has_password: true,
    })
    const [linked] = await auditOf('user.oidc_link')
    expect(linked).toMatchObject({ actor_id: existing.user.id, target_id: existing.user.id })
    expect(JSON.parse(linked!.metadata)).toEqual({ provider_key: 'closed', via: 'email' })
    await login(t, existing.email, DEFAULT_PASSWORD)
    // The link holds from then on.
    expect((await me(sessionTokenOf(await signInWithOidc(t, idp, 'closed', sub)))).id).toBe(
      existing.user.id,
    )
  })

  it('accepts email_verified sent as the string "true"', async () => {
    const existing = await createUser(t)
    const sub = account({ email: existing.email, email_verified: 'true' })
    expect((await me(sessionTokenOf(await signInWithOidc(t, idp, 'closed', sub)))).id).toBe(
      existing.user.id,
    )
  })

  it('an unverified email does not link: ACCOUNT_NOT_FOUND without auto-creation, EMAIL_NOT_VERIFIED with it', async () => {
    const existing = await createUser(t)
    for (const claims of [
      { email: existing.email, email_verified: false },
      { email: existing.email },
    ]) {
      const sub = account(claims)
      expect(errorCodeOf(await signInWithOidc(t, idp, 'closed', sub))).toBe('ACCOUNT_NOT_FOUND')
      expect(errorCodeOf(await signInWithOidc(t, idp, 'acme', sub))).toBe('EMAIL_NOT_VERIFIED')
    }
    expect(await userByEmail(existing.email)).toMatchObject({ oidc_provider: null, oidc_sub: null })
  })

  it('without auto-creation an unknown person is refused with ACCOUNT_NOT_FOUND, no session, and the failure audited', async () => {
    const email = uniqueEmail('stranger')
    const response = await signInWithOidc(
      t,
      idp,
      'closed',
      account({ email, email_verified: true }),
    )
    expect(errorCodeOf(response)).toBe('ACCOUNT_NOT_FOUND')
    expect(cookieValue(response, 'token')).toBeUndefined()
    expect(await userByEmail(email)).toBeUndefined()
    const [failure] = await auditOf('auth.oidc_failed')
    expect(failure!.actor_id).toBeNull()
    expect(JSON.parse(failure!.metadata)).toEqual({
      provider_key: 'closed',
      error: 'ACCOUNT_NOT_FOUND',
    })
    const warning = t.logs
      .map((line) => JSON.parse(line))
      .find((l) => l.oidc?.error === 'ACCOUNT_NOT_FOUND')
    expect(warning).toMatchObject({
      msg: 'OIDC sign-in failed',
      request_id: expect.any(String),
      oidc: { detail: expect.any(String) },
    })
  })

  it('auto-creation needs a verified email: EMAIL_NOT_VERIFIED without one', async () => {
    expect(errorCodeOf(await signInWithOidc(t, idp, 'acme', account({ name: 'No Mail' })))).toBe(
      'EMAIL_NOT_VERIFIED',
    )
    expect(
      errorCodeOf(
        await signInWithOidc(
          t,
          idp,
          'acme',
          account({ email: 'not an address', email_verified: true }),
        ),
      ),
    ).toBe('EMAIL_NOT_VERIFIED')
  })

  it('EMAIL_IN_USE when the account with that email is linked to another identity', async () => {
    const email = uniqueEmail('taken')
    await signInWithOidc(t, idp, 'acme', account({ email, email_verified: true }))
    for (const key of ['acme', 'closed']) {
      expect(
        errorCodeOf(await signInWithOidc(t, idp, key, account({ email, email_verified: true }))),
        key,
      ).toBe('EMAIL_IN_USE')
    }
  })

  it('creates administrators when default_role is admin; the name falls back to the local part and is made to fit', async () => {
    const email = uniqueEmail('boss')
    const boss = await me(
      sessionTokenOf(
        await signInWithOidc(t, idp, 'admins', account({ email, email_verified: true })),
      ),
    )
    expect(boss).toMatchObject({ is_admin: true, name: email.split('@')[0] })
    const long = await me(
      sessionTokenOf(
        await signInWithOidc(
          t,
          idp,
          'acme',
          account({
            email: uniqueEmail(),
            email_verified: true,
            name: ` Ann\u0000\nLee ${'x'.repeat(200)}`,
          }),
        ),
      ),
    )
    expect(long.name).toBe(`Ann Lee ${'x'.repeat(92)}`)
  })

  it('takes the email from UserInfo when the ID token carries none', async () => {
    const email = uniqueEmail('thin')
    const user = await me(
      sessionTokenOf(
        await signInWithOidc(
          t,
          thinIdp,
          'thin',
          account({ email, email_verified: true, name: 'Tina Thin' }, thinIdp),
        ),
      ),
    )
    expect(user).toMatchObject({ email, name: 'Tina Thin', oidc_provider: 'thin' })
  })

  it('ACCESS_DENIED when the person declines at the provider', async () => {
    idp.loginAs = null
    const attempt = await beginOidcAttempt(t, idp, 'acme')
    expect(attempt.callbackUrl.searchParams.get('error')).toBe('access_denied')
    expect(errorCodeOf(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie))).toBe(
      'ACCESS_DENIED',
    )
  })
})

describe('the second factor', () => {
  it('a user with MFA gets no session but the mfa_token in the fragment, and completes with POST /api/auth/mfa/verify', async () => {
    const sub = account({ email: uniqueEmail('mfa'), email_verified: true })
    const token = sessionTokenOf(await signInWithOidc(t, idp, 'acme', sub))
    const { secret } = await enableMfa(t, { token, password: null })

    const response = await signInWithOidc(t, idp, 'acme', sub)
    expect(response.statusCode).toBe(302)
    expect(cookieValue(response, 'token')).toBeUndefined()
    const location = new URL(String(response.headers.location))
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(
      `${PUBLIC_URL}/login/mfa`,
    )
    const fragment = new URLSearchParams(location.hash.slice(1))
    expect([...fragment.keys()]).toEqual(['mfa_token', 'expires_at'])
    expect(Date.parse(fragment.get('expires_at')!)).toBeGreaterThan(t.clock.now().getTime())
    expect(t.logs.some((line) => line.includes(fragment.get('mfa_token')!))).toBe(false)

    const verified = await verifyMfa(t, fragment.get('mfa_token')!, totpCode(secret, t.clock.now()))
    expect(verified.statusCode).toBe(200)
    expect(verified.json().user.oidc_sub).toBe(sub)
    const [signedIn] = await auditOf('auth.login')
    expect(JSON.parse(signedIn!.metadata)).toMatchObject({ method: 'acme+totp' })
  })
})

describe('disabled providers and users', () => {
  it('a disabled provider is not listed and neither starts nor finishes a sign-in (PROVIDER_NOT_FOUND)', async () => {
    const gone = await createProvider(t, admin.token, idp, {
      provider_key: 'gone',
      auto_create_users: true,
    })
    idp.loginAs = account({ email: uniqueEmail(), email_verified: true })
    const attempt = await beginOidcAttempt(t, idp, 'gone')
    expect((await patchProvider(gone.id, { enabled: false })).statusCode).toBe(200)

    const listed = (await t.app.inject({ method: 'GET', url: '/api/auth/providers' })).json()
    expect(listed.items.map((p: { provider_key: string }) => p.provider_key)).not.toContain('gone')
    expect(
      errorCodeOf(await t.app.inject({ method: 'GET', url: '/api/auth/oidc/gone/login' })),
    ).toBe('PROVIDER_NOT_FOUND')
    const callback = await sendCallback(t, attempt.callbackUrl, attempt.stateCookie)
    expect(errorCodeOf(callback)).toBe('PROVIDER_NOT_FOUND')
    expect(cookieValue(callback, 'token')).toBeUndefined()

    await patchProvider(gone.id, { enabled: true })
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/oidc/gone/login' })).statusCode,
    ).toBe(302)
  })

  it('a disabled user is refused with ACCOUNT_DISABLED, whether found by sub or by email', async () => {
    const sub = account({ email: uniqueEmail('off'), email_verified: true })
    const user = await me(sessionTokenOf(await signInWithOidc(t, idp, 'acme', sub)))
    await t.deps.db.updateTable('users').set({ disabled: true }).where('id', '=', user.id).execute()
    const response = await signInWithOidc(t, idp, 'acme', sub)
    expect(errorCodeOf(response)).toBe('ACCOUNT_DISABLED')
    expect(cookieValue(response, 'token')).toBeUndefined()
    const [failure] = await auditOf('auth.oidc_failed')
    expect(failure!.target_id).toBe(user.id)

    const unlinked = await createUser(t)
    await t.deps.db
      .updateTable('users')
      .set({ disabled: true })
      .where('id', '=', unlinked.user.id)
      .execute()
    expect(
      errorCodeOf(
        await signInWithOidc(
          t,
          idp,
          'closed',
          account({ email: unlinked.email, email_verified: true }),
        ),
      ),
    ).toBe('ACCOUNT_DISABLED')
    expect(await userByEmail(unlinked.email)).toMatchObject({ oidc_sub: null })
  })
})

describe('provider failures', () => {
  it('PROVIDER_ERROR when the provider cannot be reached; the cause is logged, not shown', async () => {
    const closed = await startOidcProvider({ redirectUris: [callbackUrlFor('broken')] })
    await closed.close()
    const broken = await createProvider(t, admin.token, closed, { provider_key: 'broken' })
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/broken/login' })
    expect(errorCodeOf(response)).toBe('PROVIDER_ERROR')
    const warning = t.logs
      .map((line) => JSON.parse(line))
      .find((l) => l.request_id === response.headers['x-request-id'] && l.oidc)
    expect(warning.oidc).toEqual({
      error: 'PROVIDER_ERROR',
      detail: 'the provider could not be reached (ECONNREFUSED)',
    })
    await t.app.inject({
      method: 'DELETE',
      url: `/api/oidc-providers/${broken.id}`,
      headers: bearer(admin.token),
    })
  })

  it('PROVIDER_ERROR when the provider does not answer in time', async () => {
    const silent = http.createServer(() => undefined) // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const adapter = t.deps.oidc
    t.deps.oidc = createOidcClient({ clock: t.clock, policy: t.config.outbound, timeoutSeconds: 1 })
    try {
      const issuer = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const slow = await createProvider(t, admin.token, { issuer } as OidcProviderStandIn, {
        provider_key: 'slow',
      })
      const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/slow/login' })
      expect(errorCodeOf(response)).toBe('PROVIDER_ERROR')
      const warning = t.logs
        .map((line) => JSON.parse(line))
        .find((l) => l.request_id === response.headers['x-request-id'] && l.oidc)
      expect(warning.oidc.detail).toBe('the provider did not answer in time')
      await t.app.inject({
        method: 'DELETE',
        url: `/api/oidc-providers/${slow.id}`,
        headers: bearer(admin.token),
      })
    } finally {
      t.deps.oidc = adapter
      silent.closeAllConnections()
      silent.close()
    }
  })

  it('PROVIDER_ERROR when the provider refuses the client secret', async () => {
    await patchProvider(providers.acme!.id, { client_secret: OTHER_OIDC_CLIENT_SECRET })
    const response = await signInWithOidc(
      t,
      idp,
      'acme',
      account({ email: uniqueEmail(), email_verified: true }),
    )
    expect(errorCodeOf(response)).toBe('PROVIDER_ERROR')
    const warning = t.logs
      .map((line) => JSON.parse(line))
      .find((l) => l.request_id === response.headers['x-request-id'] && l.oidc)
    expect(warning.oidc.detail).toBe('the provider answered HTTP 401 (invalid_client)')
    await patchProvider(providers.acme!.id, { client_secret: OIDC_CLIENT_SECRET })
  })

  it('PROVIDER_ERROR when the stored secret no longer decrypts (ENCRYPTION_KEY changed)', async () => {
    const foreign = encrypt(
      randomBytes(32),
      OIDC_CLIENT_SECRET,
      `oidc_providers.client_secret:${providers.acme!.id}`,
    )
    await t.deps.db
      .updateTable('oidc_providers')
      .set({ client_secret_encrypted: foreign })
      .where('id', '=', providers.acme!.id)
      .execute()
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/login' })
    expect(errorCodeOf(response)).toBe('PROVIDER_ERROR')
    expect(
      t.logs.some((line) => line.includes('cannot be decrypted with the current ENCRYPTION_KEY')),
    ).toBe(true)
    await patchProvider(providers.acme!.id, { client_secret: OIDC_CLIENT_SECRET })
  })
})

describe('discovery', () => {
  it('is cached per provider for an hour and asked afresh once the provider changes', async () => {
    await t.app.inject({ method: 'GET', url: '/api/auth/oidc/closed/login' })
    const before = idp.discoveryRequests
    await t.app.inject({ method: 'GET', url: '/api/auth/oidc/closed/login' })
    expect(idp.discoveryRequests).toBe(before)
    t.clock.advance(1)
    await patchProvider(providers.closed!.id, { name: 'Closed again' })
    await t.app.inject({ method: 'GET', url: '/api/auth/oidc/closed/login' })
    expect(idp.discoveryRequests).toBe(before + 1)
    t.clock.advance(60 * 60 + 1)
    await t.app.inject({ method: 'GET', url: '/api/auth/oidc/closed/login' })
    expect(idp.discoveryRequests).toBe(before + 2)
  })
})
