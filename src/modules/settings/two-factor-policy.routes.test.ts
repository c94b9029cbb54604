/**
 * The instance two-factor policy. The setting itself (re-authentication, audit,
 * an administrator must have a factor to require one), the restricted session it imposes on
 * people without a second factor (every route but enrolment answers 403 MFA_ENROLLMENT_REQUIRED,
 * API tokens included), the upgrade of that very session on enrolment, "admins only", and OIDC
 * sign-ins with and without a trusted `amr`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
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
} from '../../../test/helpers/factories.js'
import { authenticatorFor, registerPasskey } from '../../../test/helpers/passkeys.js'
import {
  callbackUrlFor,
  createProvider,
  sessionTokenOf,
  signInWithOidc,
} from '../../../test/helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../../../test/helpers/oidc-provider.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import { OIDC_CLIENT_SECRET, scanResponsesForSecrets } from '../../../test/helpers/secret-scan.js'

const t = useTestApp()
scanResponsesForSecrets(t, [OIDC_CLIENT_SECRET])

let admin: TestUser & SignedIn & { mfa: MfaEnrolled }

beforeAll(async () => {
  const signedIn = await createSignedInUser(t, { isAdmin: true })
  const mfa = await enableMfa(t, signedIn)
  admin = { ...signedIn, mfa }
})

afterAll(async () => {
  await setPolicy('off')
})

function setPolicy(required: 'off' | 'admins' | 'everyone', as = admin) {
  return t.app
    .inject({
      method: 'PUT',
      url: '/api/admin/settings/two-factor-policy',
      headers: bearer(as.token),
      payload: {
        required,
        current_password: DEFAULT_PASSWORD,
        code: totpCode(as.mfa.secret, t.clock.now()),
      },
    })
    .then((response) => {
      // Each code is accepted once: the next change needs the next step.
      t.clock.advance(30)
      return response
    })
}

const get = (url: string, token: string) =>
  t.app.inject({ method: 'GET', url, headers: bearer(token) })

/** A sampling of routes outside enrolment, each with a body that would otherwise be valid. */
const RESTRICTED: Array<{
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  url: string
  payload?: Record<string, unknown>
}> = [
  { method: 'GET', url: '/api/users/me/sessions' },
  { method: 'PATCH', url: '/api/users/me', payload: { name: 'Someone else' } },
  { method: 'GET', url: '/api/tokens' },
  { method: 'POST', url: '/api/tokens', payload: { name: 'sneaky', permissions: ['links:read'] } },
  { method: 'GET', url: '/api/links' },
  { method: 'POST', url: '/api/organizations', payload: { name: 'Escape hatch' } },
  { method: 'GET', url: '/api/users/me/security-events' },
  { method: 'GET', url: '/api/users/me/notifications' },
  {
    method: 'POST',
    url: '/api/users/me/password',
    payload: { current_password: DEFAULT_PASSWORD, new_password: 'another sound passphrase 7' },
  },
  { method: 'GET', url: '/api/config/ai-suggestions' },
]

describe('the setting', () => {
  it('reads off by default, and changes only with a session, the password and a code, audited', async () => {
    expect((await get('/api/admin/settings/two-factor-policy', admin.token)).json()).toEqual({
      required: 'off',
      updated_at: null,
    })

    const noPassword = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/two-factor-policy',
      headers: bearer(admin.token),
      payload: { required: 'everyone' },
    })
    expect(noPassword.json().reason).toBe('PASSWORD_REQUIRED')
    const noCode = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/two-factor-policy',
      headers: bearer(admin.token),
      payload: { required: 'everyone', current_password: DEFAULT_PASSWORD },
    })
    expect(noCode.statusCode).toBe(400)
    expect(noCode.json().details[0].field).toBe('code')

    const { token: apiToken } = await createApiTokenFor(t, admin.token)
    const byToken = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/two-factor-policy',
      headers: bearer(apiToken),
      payload: { required: 'everyone', current_password: DEFAULT_PASSWORD },
    })
    expect(byToken.json().reason).toBe('SESSION_REQUIRED')

    const changed = await setPolicy('admins')
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toMatchObject({ required: 'admins' })
    expect(changed.json().updated_at).not.toBeNull()

    const audit = await get('/api/admin/audit-log?action=settings.two_factor_policy', admin.token)
    expect(audit.json().items[0]).toMatchObject({
      actor_id: admin.user.id,
      metadata: { fields: ['required'] },
    })
    expect((await setPolicy('off')).statusCode).toBe(200)
  })

  it('is for administrators only', async () => {
    const user = await createSignedInUser(t)
    expect((await get('/api/admin/settings/two-factor-policy', user.token)).json().reason).toBe(
      'FORBIDDEN',
    )
  })

  it('an administrator without a second factor cannot require one (409 MFA_NOT_ENABLED)', async () => {
    const other = await createSignedInUser(t, { isAdmin: true })
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/two-factor-policy',
      headers: bearer(other.token),
      payload: { required: 'everyone', current_password: DEFAULT_PASSWORD },
    })
    expect(response.statusCode).toBe(409)
    expect(response.json().reason).toBe('MFA_NOT_ENABLED')
  })

  it('is not writable through the generic settings endpoint', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/two_factor_policy',
      headers: bearer(admin.token),
      payload: { value: { required: 'off' } },
    })
    expect(response.statusCode).toBe(400)
  })
})

describe('required for everyone', () => {
  beforeAll(async () => {
    expect((await setPolicy('everyone')).statusCode).toBe(200)
  })
  afterAll(async () => {
    expect((await setPolicy('off')).statusCode).toBe(200)
  })

  it('a person without a second factor reaches only enrolment; after enrolling, the same session has full access', async () => {
    const person = await createUser(t)
    const { token } = await login(t, person.email, DEFAULT_PASSWORD)

    for (const route of RESTRICTED) {
      const response = await t.app.inject({
        method: route.method,
        url: route.url,
        headers: bearer(token),
        ...(route.payload && { payload: route.payload }),
      })
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(403)
      expect(response.json().reason, `${route.method} ${route.url}`).toBe('MFA_ENROLLMENT_REQUIRED')
    }

    expect((await get('/api/users/me', token)).statusCode).toBe(200)
    const status = await get('/api/auth/mfa/status', token)
    expect(status.json()).toMatchObject({ enabled: false, enrollment_required: true })
    expect((await get('/api/auth/csrf', token)).statusCode).toBe(200)
    const cancel = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/enroll/cancel',
      headers: bearer(token),
    })
    expect(cancel.statusCode).toBe(204)

    await enableMfa(t, { token, password: DEFAULT_PASSWORD })
    expect((await get('/api/users/me/sessions', token)).statusCode).toBe(200)
    expect((await get('/api/links', token)).statusCode).toBe(200)
    expect((await get('/api/auth/mfa/status', token)).json()).toMatchObject({
      enabled: true,
      enrollment_required: false,
    })
  })

  it('a passkey is a way out as well: listing and registering are open, then the same session has full access', async () => {
    const person = await createUser(t)
    const { token } = await login(t, person.email, DEFAULT_PASSWORD)
    expect((await get('/api/links', token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
    const listed = await get('/api/auth/passkeys', token)
    expect(listed.statusCode).toBe(200)
    expect(listed.json().items).toEqual([])

    await registerPasskey(t, { token, password: DEFAULT_PASSWORD }, authenticatorFor(t))
    expect((await get('/api/links', token)).statusCode).toBe(200)
    expect((await get('/api/auth/mfa/status', token)).json()).toMatchObject({
      enrollment_required: false,
    })
  })

  it('a signed-in person without a factor is restricted at once when the policy is switched on (no new sign-in needed)', async () => {
    await setPolicy('off')
    const person = await createSignedInUser(t)
    expect((await get('/api/links', person.token)).statusCode).toBe(200)
    await setPolicy('everyone')
    expect((await get('/api/links', person.token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
  })

  it("refuses such a person's API tokens until they enrol, then accepts them again", async () => {
    await setPolicy('off')
    const person = await createSignedInUser(t)
    const { token: apiToken } = await createApiTokenFor(t, person.token)
    await setPolicy('everyone')
    const refused = await get('/api/links', apiToken)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
    // Logout and csrf are open; a token can read who it is, nothing more.
    expect((await get('/api/users/me', apiToken)).statusCode).toBe(200)

    await enableMfa(t, person)
    expect((await get('/api/links', apiToken)).statusCode).toBe(200)
  })

  it('logout works in a restricted session', async () => {
    const person = await createSignedInUser(t)
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: bearer(person.token),
    })
    expect(out.statusCode).toBe(204)
    expect((await get('/api/users/me', person.token)).statusCode).toBe(401)
  })

  it('a burst of requests in a restricted session is refused every time (no request slips through)', async () => {
    const person = await createSignedInUser(t)
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => get('/api/tokens', person.token)),
    )
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(403))
  })

  it('disabling the factor under the policy restricts the session again', async () => {
    const person = await createSignedInUser(t)
    const mfa = await enableMfa(t, person)
    expect((await get('/api/links', person.token)).statusCode).toBe(200)
    const off = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/disable',
      headers: bearer(person.token),
      payload: { code: totpCode(mfa.secret, t.clock.now()), password: DEFAULT_PASSWORD },
    })
    expect(off.statusCode).toBe(204)
    expect((await get('/api/links', person.token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
  })

  it('public routes are unaffected', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/providers' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
  })
})

describe('required for administrators only', () => {
  beforeAll(async () => {
    expect((await setPolicy('admins')).statusCode).toBe(200)
  })
  afterAll(async () => {
    expect((await setPolicy('off')).statusCode).toBe(200)
  })

  it('leaves people who are not administrators alone', async () => {
    const person = await createSignedInUser(t)
    expect((await get('/api/links', person.token)).statusCode).toBe(200)
    expect((await get('/api/auth/mfa/status', person.token)).json().enrollment_required).toBe(false)
  })

  it('restricts an administrator without a second factor', async () => {
    const other = await createSignedInUser(t, { isAdmin: true })
    expect((await get('/api/admin/users', other.token)).json().reason).toBe(
      'MFA_ENROLLMENT_REQUIRED',
    )
    expect((await get('/api/links', other.token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
  })
})

describe('OIDC sign-ins', () => {
  let idp: OidcProviderStandIn
  const KEYS = ['vouching', 'plain']

  beforeAll(async () => {
    idp = await startOidcProvider({ redirectUris: KEYS.map(callbackUrlFor), claimsInIdToken: true })
    // A provider is credential-equivalent: the administrator's password and a fresh code.
    const code = () => {
      const next = totpCode(admin.mfa.secret, t.clock.now())
      t.clock.advance(30)
      return next
    }
    const trusted = await createProvider(t, admin.token, idp, {
      provider_key: 'vouching',
      auto_create_users: true,
      trusts_mfa_amr: true,
      code: code(),
    })
    expect(trusted.trusts_mfa_amr).toBe(true)
    const plain = await createProvider(t, admin.token, idp, {
      provider_key: 'plain',
      auto_create_users: true,
      code: code(),
    })
    expect(plain.trusts_mfa_amr).toBe(false)
    expect((await setPolicy('everyone')).statusCode).toBe(200)
  })
  afterAll(async () => {
    idp.rewriteIdToken = null
    await setPolicy('off')
    await idp?.close()
  })

  /** The provider says it checked a password and a one-time code. */
  function sendAmr(amr: string[] | null): void {
    idp.rewriteIdToken =
      amr === null
        ? null
        : async (token) => {
            const parts = idp.decode(token)
            return idp.sign({ header: parts.header, claims: { ...parts.claims, amr } }, 'provider')
          }
  }

  async function oidcSession(providerKey: string, sub: string): Promise<string> {
    idp.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true, name: sub })
    return sessionTokenOf(await signInWithOidc(t, idp, providerKey, sub))
  }

  it("a trusted provider's amr naming a second factor satisfies the policy", async () => {
    sendAmr(['pwd', 'otp'])
    const token = await oidcSession('vouching', 'amr-otp')
    expect((await get('/api/links', token)).statusCode).toBe(200)
    expect((await get('/api/auth/mfa/status', token)).json().enrollment_required).toBe(false)
  })

  it('the same provider without such an amr gives a restricted session', async () => {
    sendAmr(['pwd'])
    const token = await oidcSession('vouching', 'amr-pwd')
    expect((await get('/api/links', token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
    sendAmr(null)
    const none = await oidcSession('vouching', 'amr-none')
    expect((await get('/api/links', none)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
  })

  it('a provider not marked trusts_mfa_amr is not believed, whatever its amr says', async () => {
    sendAmr(['mfa', 'hwk'])
    const token = await oidcSession('plain', 'amr-untrusted')
    expect((await get('/api/links', token)).json().reason).toBe('MFA_ENROLLMENT_REQUIRED')
  })
})
