/**
 * The instance's credential-equivalent changes — creating a SCIM credential, pointing SMTP
 * elsewhere (host, port, sender), creating an identity provider or changing its issuer or trust —
 * need the administrator's session and proof (403 SESSION_REQUIRED to any token, 400 without the
 * proof), and every other administrator is mailed. SCIM sets passwords only on accounts it
 * provisioned, never on one with a second factor, and by the password rules; an account with a
 * second factor is never linked to a provider by email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  type MfaEnrolled,
  type SignedIn,
  type TestUser,
} from '../helpers/factories.js'
import { totpCode } from '../helpers/rfc6238.js'
import {
  callbackUrlFor,
  createProvider,
  errorCodeOf,
  signInWithOidc,
} from '../helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../helpers/oidc-provider.js'
import { OIDC_CLIENT_ID } from '../helpers/oidc-provider.js'
import { OIDC_CLIENT_SECRET } from '../helpers/secret-scan.js'
import { expectScimError, PATCH_OP, scimClient, USER_SCHEMA } from '../helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const KEYS = ['attacker', 'trusting', 'proved']
let standIn: OidcProviderStandIn
let admin: TestUser & SignedIn
let mfa: MfaEnrolled
let adminToken: string
let otherAdmin: TestUser

beforeAll(async () => {
  standIn = await startOidcProvider({
    redirectUris: KEYS.map(callbackUrlFor),
    claimsInIdToken: true,
  })
  admin = await createSignedInUser(t, { isAdmin: true })
  mfa = await enableMfa(t, admin)
  adminToken = (await createApiTokenFor(t, admin.token)).token
  otherAdmin = await createUser(t, { isAdmin: true })
})
afterAll(async () => {
  await standIn?.close()
})

function send(method: 'POST' | 'PUT' | 'PATCH', url: string, token: string, payload: object) {
  return t.app.inject({ method, url, headers: bearer(token), payload })
}

/** A fresh code of the administrator's authenticator (the clock moves a step on). */
function code(): string {
  t.clock.advance(30)
  return totpCode(mfa.secret, t.clock.now())
}

const providerBody = (key: string) => ({
  provider_key: key,
  name: 'Attacker',
  issuer_url: standIn.issuer,
  client_id: OIDC_CLIENT_ID,
  client_secret: OIDC_CLIENT_SECRET,
  auto_create_users: false,
  trust_email: true,
  trusts_mfa_amr: true,
})

const noticesTo = (userId: string) =>
  t.deps.db
    .selectFrom('mail_outbox')
    .select(['kind', 'params'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'administration_trust_changed')
    .execute()

describe("an administrator's API token", () => {
  it('cannot create a SCIM credential, move SMTP or create or retrust a provider (403 SESSION_REQUIRED)', async () => {
    const proof = { current_password: DEFAULT_PASSWORD, code: code() }
    expectReason(
      await send('POST', '/api/admin/scim/credentials', adminToken, { name: 'stolen', ...proof }),
      403,
      'SESSION_REQUIRED',
    )
    for (const change of [
      { host: 'mail.attacker.example' },
      { port: 2525 },
      { from_address: 'noreply@attacker.example' },
    ]) {
      expectReason(
        await send('PUT', '/api/admin/settings/smtp', adminToken, { ...change, ...proof }),
        403,
        'SESSION_REQUIRED',
      )
    }
    expectReason(
      await send('POST', '/api/oidc-providers', adminToken, {
        ...providerBody('attacker'),
        ...proof,
      }),
      403,
      'SESSION_REQUIRED',
    )
    const existing = await createProvider(t, admin.token, standIn, {
      provider_key: 'trusting',
      auto_create_users: false,
      code: code(),
    })
    for (const change of [
      { trust_email: true },
      { trusts_mfa_amr: true },
      { issuer_url: 'https://issuer.attacker.example' },
    ]) {
      expectReason(
        await send('PATCH', `/api/oidc-providers/${existing.id}`, adminToken, change),
        403,
        'SESSION_REQUIRED',
      )
    }
    // What reaches no account stays open to the token.
    const renamed = await send('PATCH', `/api/oidc-providers/${existing.id}`, adminToken, {
      name: 'Renamed',
    })
    expect(renamed.statusCode).toBe(200)
    const sender = await send('PUT', '/api/admin/settings/smtp', adminToken, { from_name: 'Ops' })
    expect(sender.statusCode).toBe(200)
  })
})

describe("an administrator's session", () => {
  it('needs the password and the second factor for each change', async () => {
    const attempts: Array<[method: 'POST' | 'PUT', url: string, body: object]> = [
      ['POST', '/api/admin/scim/credentials', { name: 'proved' }],
      ['PUT', '/api/admin/settings/smtp', { host: 'mail.example.org' }],
      ['POST', '/api/oidc-providers', providerBody('proved')],
    ]
    for (const [method, url, body] of attempts) {
      expectReason(await send(method, url, admin.token, body), 400, 'PASSWORD_REQUIRED')
      const noCode = await send(method, url, admin.token, {
        ...body,
        current_password: DEFAULT_PASSWORD,
      })
      expect(noCode.statusCode, url).toBe(400)
      expect(noCode.json().details, url).toEqual([expect.objectContaining({ field: 'code' })])
    }
    const before = (await noticesTo(otherAdmin.user.id)).length
    for (const [method, url, body] of attempts) {
      const done = await send(method, url, admin.token, {
        ...body,
        current_password: DEFAULT_PASSWORD,
        code: code(),
      })
      expect(done.statusCode, `${url}: ${done.body}`).toBeLessThan(300)
    }
    // Every other administrator hears of each change; the actor does not.
    const notices = await noticesTo(otherAdmin.user.id)
    expect(notices.length - before).toBe(3)
    expect(notices.map((n) => JSON.parse(n.params).change).sort()).toEqual(
      expect.arrayContaining(['identity_provider', 'scim_credential', 'smtp']),
    )
    expect(await noticesTo(admin.user.id)).toEqual([])
    expect(JSON.stringify(notices)).not.toContain(DEFAULT_PASSWORD)
  })
})

describe('SCIM passwords', () => {
  const setPassword = (client: Awaited<ReturnType<typeof scimClient>>, id: string, pw: string) =>
    client.request('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { password: pw } }],
    })

  it('never set on a local account SCIM did not provision, nor on one with a second factor', async () => {
    const client = await scimClient(t)
    const local = await createUser(t)
    expectScimError(await setPassword(client, local.user.id, 'taken over 12345'), 400, 'mutability')
    await login(t, local.email, DEFAULT_PASSWORD)

    const created = await client.request('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'provisioned@example.com',
      emails: [{ value: 'provisioned@example.com', primary: true }],
      password: 'first sound passphrase 1',
    })
    expect(created.statusCode, created.body).toBe(201)
    const id: string = created.json().id
    expectScimError(await setPassword(client, id, 'short'), 400, 'invalidValue')
    expectScimError(await setPassword(client, id, 'password1'), 400, 'invalidValue')
    expect((await setPassword(client, id, 'second sound passphrase 2')).statusCode).toBe(200)

    const session = await login(t, 'provisioned@example.com', 'second sound passphrase 2')
    await enableMfa(t, { token: session.token, password: 'second sound passphrase 2' })
    expectScimError(await setPassword(client, id, 'third sound passphrase 3'), 400, 'mutability')
  })

  it('a weak password at creation is refused', async () => {
    const client = await scimClient(t)
    const created = await client.request('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'weak@example.com',
      emails: [{ value: 'weak@example.com', primary: true }],
      password: 'weak',
    })
    expectScimError(created, 400, 'invalidValue')
  })
})

describe('OIDC sign-in by email', () => {
  it('never links an account with a second factor, even through a trust_email provider', async () => {
    const key = 'attacker'
    await createProvider(t, admin.token, standIn, {
      provider_key: key,
      auto_create_users: false,
      trust_email: true,
      trusts_mfa_amr: true,
      code: code(),
    })
    const victim = await createSignedInUser(t)
    await enableMfa(t, victim)
    const sub = `victim-${Date.now()}`
    standIn.accounts.set(sub, { email: victim.email, email_verified: true })
    expect(errorCodeOf(await signInWithOidc(t, standIn, key, sub))).toBe('LINK_REQUIRED')
    const row = await t.deps.db
      .selectFrom('users')
      .select('oidc_sub')
      .where('id', '=', victim.user.id)
      .executeTakeFirstOrThrow()
    expect(row.oidc_sub).toBeNull()
  })
})
