/**
 * OIDC identities (issuer and subject, email linking) against two real OpenID providers in the test
 * process:
 * - an identity is (issuer, subject): changing a provider's issuer_url unlinks its accounts in the
 *   same transaction, so the same `sub` at the new issuer signs into nobody's account;
 * - a first sign-in links an existing account by verified email only through a provider marked
 *   `trust_email` (default false), and never an administrator's account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  cookieValue,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  type SignedIn,
  type TestUser,
  DEFAULT_PASSWORD,
} from '../helpers/factories.js'
import {
  callbackUrlFor,
  createProvider,
  errorCodeOf,
  sendCallback,
  sessionTokenOf,
  signInWithOidc,
} from '../helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../helpers/oidc-provider.js'
import { OIDC_CLIENT_SECRET } from '../helpers/secret-scan.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const KEYS = ['moving', 'moving-admin', 'untrusted', 'trusted', 'profile-link']
let first: OidcProviderStandIn
let second: OidcProviderStandIn
let admin: TestUser & SignedIn

beforeAll(async () => {
  const redirectUris = KEYS.map(callbackUrlFor)
  first = await startOidcProvider({ redirectUris, claimsInIdToken: true })
  second = await startOidcProvider({ redirectUris, claimsInIdToken: true })
  admin = await createSignedInUser(t, { isAdmin: true })
})
afterAll(async () => {
  await first?.close()
  await second?.close()
})

const me = async (token: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })).json()
const linkOf = (userId: string) =>
  t.deps.db
    .selectFrom('users')
    .select(['oidc_provider', 'oidc_issuer', 'oidc_sub'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()

let n = 0
const freshSub = () => `shared-sub-${++n}-${Date.now()}`

describe('changing issuer_url', () => {
  it('an_identity_is_matched_on_issuer_and_subject: the same sub at the new issuer does not sign into the old account', async () => {
    const provider = await createProvider(t, admin.token, first, {
      provider_key: 'moving',
      auto_create_users: true,
    })
    const sub = freshSub()
    first.accounts.set(sub, {
      email: `victim-${n}@example.com`,
      email_verified: true,
      name: 'Victim',
    })
    const victim = await me(sessionTokenOf(await signInWithOidc(t, first, 'moving', sub)))
    expect(await linkOf(victim.id)).toEqual({
      oidc_provider: 'moving',
      oidc_issuer: first.issuer,
      oidc_sub: sub,
    })

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/oidc-providers/${provider.id}`,
      headers: bearer(admin.token),
      payload: {
        current_password: DEFAULT_PASSWORD,
        issuer_url: second.issuer,
        client_secret: OIDC_CLIENT_SECRET,
      },
    })
    expect(patched.statusCode).toBe(200)
    // Unlinked in the same transaction as the change, and audited with the count.
    expect(await linkOf(victim.id)).toEqual({
      oidc_provider: null,
      oidc_issuer: null,
      oidc_sub: null,
    })
    const event = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'oidc_provider.update')
      .where('target_id', '=', provider.id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(event.metadata)).toMatchObject({ users_unlinked: 1 })

    // The attacker controls the new issuer and presents the same sub, without the victim's email.
    second.accounts.set(sub, { email: `attacker-${n}@example.com`, email_verified: true })
    // A burst of sign-ins with that sub at the new issuer: none reaches the victim's account.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => signInWithOidc(t, second, 'moving', sub)),
    )
    const ids = new Set(
      await Promise.all(burst.map(async (response) => (await me(sessionTokenOf(response))).id)),
    )
    expect(ids.size).toBe(1)
    expect(ids.has(victim.id)).toBe(false)
    const attacker = await me(sessionTokenOf(await signInWithOidc(t, second, 'moving', sub)))
    expect(attacker.id).not.toBe(victim.id)
    expect(attacker.email).toBe(`attacker-${n}@example.com`)
  })

  it('an_issuer_change_takes_the_link_of_an_administrator_along: no admin session from the new issuer', async () => {
    const provider = await createProvider(t, admin.token, first, {
      provider_key: 'moving-admin',
      auto_create_users: false,
    })
    const oidcAdmin = await createUser(t, { isAdmin: true })
    const sub = freshSub()
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: 'moving-admin', oidc_issuer: first.issuer, oidc_sub: sub })
      .where('id', '=', oidcAdmin.user.id)
      .execute()
    first.accounts.set(sub, { email: oidcAdmin.email, email_verified: true })
    expect((await me(sessionTokenOf(await signInWithOidc(t, first, 'moving-admin', sub)))).id).toBe(
      oidcAdmin.user.id,
    )

    await t.app.inject({
      method: 'PATCH',
      url: `/api/oidc-providers/${provider.id}`,
      headers: bearer(admin.token),
      payload: {
        current_password: DEFAULT_PASSWORD,
        issuer_url: second.issuer,
        client_secret: OIDC_CLIENT_SECRET,
      },
    })
    second.accounts.set(sub, { email: 'someone-else@example.com', email_verified: true })
    expect(errorCodeOf(await signInWithOidc(t, second, 'moving-admin', sub))).toBe(
      'ACCOUNT_NOT_FOUND',
    )
    // Even presenting the admin's verified email does not link it (not trusted, and an
    // administrator).
    second.accounts.set(sub, { email: oidcAdmin.email, email_verified: true })
    expect(errorCodeOf(await signInWithOidc(t, second, 'moving-admin', sub))).toBe('LINK_REQUIRED')
    expect(await linkOf(oidcAdmin.user.id)).toEqual({
      oidc_provider: null,
      oidc_issuer: null,
      oidc_sub: null,
    })
  })

  it('a_link_made_under_another_issuer_is_not_honoured_even_if_left_in_place', async () => {
    // Defence in depth: a row whose issuer is not the provider's (as a hand-edited database could
    // hold).
    await createProvider(t, admin.token, second, {
      provider_key: 'untrusted',
      auto_create_users: false,
    })
    const user = await createUser(t)
    const sub = freshSub()
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: 'untrusted', oidc_issuer: first.issuer, oidc_sub: sub })
      .where('id', '=', user.user.id)
      .execute()
    second.accounts.set(sub, { email: 'nobody-here@example.com', email_verified: true })
    expect(errorCodeOf(await signInWithOidc(t, second, 'untrusted', sub))).toBe('ACCOUNT_NOT_FOUND')
  })
})

describe('linking by email at first sign-in', () => {
  it('links_by_email_only_for_providers_marked_trust_email_and_never_an_administrator', async () => {
    const trusted = await createProvider(t, admin.token, first, {
      provider_key: 'trusted',
      auto_create_users: false,
      trust_email: true,
    })
    expect(trusted.trust_email).toBe(true)
    const untrusted = (
      await t.app.inject({
        method: 'GET',
        url: '/api/oidc-providers?limit=100',
        headers: bearer(admin.token),
      })
    )
      .json()
      .items.find((p: { provider_key: string }) => p.provider_key === 'untrusted')
    expect(untrusted.trust_email).toBe(false)

    const person = await createUser(t)
    const administrator = await createUser(t, { isAdmin: true })
    const personSub = freshSub()
    second.accounts.set(personSub, { email: person.email, email_verified: true })
    // Not trusted: refused, the account stays unlinked; the person links from their profile
    // instead.
    expect(errorCodeOf(await signInWithOidc(t, second, 'untrusted', personSub))).toBe(
      'LINK_REQUIRED',
    )
    expect((await linkOf(person.user.id)).oidc_sub).toBeNull()

    // Trusted: an ordinary account is linked …
    const sub = freshSub()
    first.accounts.set(sub, { email: person.email, email_verified: true })
    expect((await me(sessionTokenOf(await signInWithOidc(t, first, 'trusted', sub)))).id).toBe(
      person.user.id,
    )
    // … an administrator's never.
    const adminSub = freshSub()
    first.accounts.set(adminSub, { email: administrator.email, email_verified: true })
    expect(errorCodeOf(await signInWithOidc(t, first, 'trusted', adminSub))).toBe('LINK_REQUIRED')
    expect((await linkOf(administrator.user.id)).oidc_sub).toBeNull()
  })
})

describe('linking a provider from the profile', () => {
  const startLink = (token: string, key: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/users/me/identities/${key}/link`,
      headers: bearer(token),
    })

  async function linkThrough(
    standIn: OidcProviderStandIn,
    person: { token: string },
    key: string,
    sub: string,
  ) {
    const started = await startLink(person.token, key)
    expect(started.statusCode, started.body).toBe(200)
    const stateCookie = cookieValue(started, 'oidc_state')!
    standIn.loginAs = sub
    const callback = await standIn.authorize(started.json().authorization_url)
    return { callback, stateCookie }
  }

  it('links_the_signed_in_account_even_an_administrator_and_the_link_then_signs_in', async () => {
    await createProvider(t, admin.token, second, {
      provider_key: 'profile-link',
      auto_create_users: false,
    })
    for (const person of [
      await createSignedInUser(t),
      await createSignedInUser(t, { isAdmin: true }),
    ]) {
      const sub = freshSub()
      second.accounts.set(sub, { email: 'whatever@example.org', email_verified: false })
      const { callback, stateCookie } = await linkThrough(second, person, 'profile-link', sub)
      const done = await sendCallback(t, callback, stateCookie)
      expect(done.statusCode).toBe(302)
      expect(done.headers.location).toBe('http://switchboard.test/account?linked=profile-link')
      expect(await linkOf(person.user.id)).toEqual({
        oidc_provider: 'profile-link',
        oidc_issuer: second.issuer,
        oidc_sub: sub,
      })
      expect(
        (await me(sessionTokenOf(await signInWithOidc(t, second, 'profile-link', sub)))).id,
      ).toBe(person.user.id)
      const listed = await t.app.inject({
        method: 'GET',
        url: '/api/users/me/identities',
        headers: bearer(person.token),
      })
      expect(listed.json().items).toEqual([{ provider_key: 'profile-link', name: 'Stand-in' }])
      expect(
        (
          await t.app.inject({
            method: 'DELETE',
            url: '/api/users/me/identities/profile-link',
            headers: bearer(person.token),
          })
        ).statusCode,
      ).toBe(204)
      expect((await linkOf(person.user.id)).oidc_sub).toBeNull()
    }
  })

  it('links_one_identity_to_one_account_when_two_accounts_finish_at_once', async () => {
    const [a, b] = [await createSignedInUser(t), await createSignedInUser(t)]
    const sub = freshSub()
    second.accounts.set(sub, {})
    const flows = [
      await linkThrough(second, a, 'profile-link', sub),
      await linkThrough(second, b, 'profile-link', sub),
    ]
    const answers = await Promise.all(flows.map((f) => sendCallback(t, f.callback, f.stateCookie)))
    const locations = answers.map((r) => String(r.headers.location)).sort()
    expect(locations).toEqual([
      'http://switchboard.test/account?link_error=IDENTITY_IN_USE',
      'http://switchboard.test/account?linked=profile-link',
    ])
    const holders = await t.deps.db
      .selectFrom('users')
      .select('id')
      .where('oidc_sub', '=', sub)
      .execute()
    expect(holders).toHaveLength(1)
  })

  it('needs_a_session_that_is_still_live_when_the_provider_sends_the_browser_back', async () => {
    const person = await createSignedInUser(t)
    const apiToken = await createApiTokenFor(t, person.token)
    expectReason(await startLink(apiToken.token, 'profile-link'), 403, 'SESSION_REQUIRED')
    const sub = freshSub()
    second.accounts.set(sub, {})
    const { callback, stateCookie } = await linkThrough(second, person, 'profile-link', sub)
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(person.token) })
    const done = await sendCallback(t, callback, stateCookie)
    expect(done.headers.location).toBe('http://switchboard.test/account?link_error=SESSION_ENDED')
    expect((await linkOf(person.user.id)).oidc_sub).toBeNull()
  })
})
