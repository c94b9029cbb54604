/**
 * When PUBLIC_URL is https every cookie is `__Host-` prefixed (Secure, Path=/, no
 * Domain), and readers accept only the prefixed name — an unprefixed cookie is what a sibling
 * subdomain or a plain-http page could plant. On http the names stay `token`, `csrf_token`,
 * `oidc_state`.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { createSignedInUser, createUser, DEFAULT_PASSWORD } from '../helpers/factories.js'
import { createProvider } from '../helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../helpers/oidc-provider.js'
import { expectReason } from '../helpers/expect.js'

const HTTPS_URL = 'https://switchboard.test'

function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie']
  return header === undefined ? [] : Array.isArray(header) ? header : [header]
}

function expectHostCookie(line: string | undefined): void {
  expect(line).toBeDefined()
  expect(line).toMatch(/^__Host-/)
  expect(line).toMatch(/; Secure(;|$)/)
  expect(line).toMatch(/; Path=\/(;|$)/)
  expect(line).not.toMatch(/Domain=/i)
}

describe('cookies when PUBLIC_URL is https', () => {
  const t = useTestApp({ env: { PUBLIC_URL: HTTPS_URL } })
  let idp: OidcProviderStandIn
  beforeAll(async () => {
    idp = await startOidcProvider({
      redirectUris: [`${HTTPS_URL}/api/auth/oidc/acme/callback`],
      claimsInIdToken: true,
    })
  })
  afterAll(async () => idp?.close())

  async function signIn() {
    const { email } = await createUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: DEFAULT_PASSWORD },
    })
    expect(response.statusCode).toBe(200)
    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]))
    return { response, token: cookies['__Host-token']!, csrf: cookies['__Host-csrf_token']! }
  }

  it('sign-in sets __Host-token, __Host-csrf_token and __Host-device: Secure, Path=/, no Domain; no unprefixed cookie', async () => {
    const { response, token, csrf } = await signIn()
    const lines = setCookies(response)
    expect(lines.map((l) => l.split('=')[0]).sort()).toEqual([
      '__Host-csrf_token',
      '__Host-device',
      '__Host-token',
    ])
    for (const line of lines) expectHostCookie(line)
    expect(lines.find((l) => l.startsWith('__Host-token='))).toMatch(/HttpOnly/)
    expect(token).toBe(response.json().token)
    expect(csrf).toBeTruthy()
  })

  it('the prefixed session cookie authenticates; an unprefixed one does not', async () => {
    const { token } = await signIn()
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/users/me',
          cookies: { '__Host-token': token },
        })
      ).statusCode,
    ).toBe(200)
    expectReason(
      await t.app.inject({ method: 'GET', url: '/api/users/me', cookies: { token } }),
      401,
      'UNAUTHORIZED',
    )
  })

  it('CSRF: the header must match __Host-csrf_token; an unprefixed csrf_token cookie is not read', async () => {
    const { token, csrf } = await signIn()
    const tossed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { '__Host-token': token, csrf_token: csrf },
      headers: { 'x-csrf-token': csrf },
    })
    expectReason(tossed, 403, 'CSRF_FAILED')
    const csrfAnswer = await t.app.inject({
      method: 'GET',
      url: '/api/auth/csrf',
      cookies: { '__Host-token': token },
    })
    expect(csrfAnswer.json().csrf_token).toBe(csrf)
    expectHostCookie(setCookies(csrfAnswer)[0])
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { '__Host-token': token, '__Host-csrf_token': csrf },
      headers: { 'x-csrf-token': csrf },
    })
    expect(out.statusCode).toBe(204)
    // Sign-out clears the prefixed cookies (a clearing cookie needs the same prefix and
    // attributes).
    const cleared = setCookies(out)
    expect(cleared.map((l) => l.split('=')[0]).sort()).toEqual([
      '__Host-csrf_token',
      '__Host-token',
    ])
    for (const line of cleared) {
      expectHostCookie(line)
      expect(line).toMatch(/Max-Age=0/)
    }
  })

  it('OIDC sign-in keeps its state in __Host-oidc_state (Path=/), and only that name finishes it', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await createProvider(t, admin.token, idp, {
      provider_key: 'acme',
      name: 'Acme',
      auto_create_users: true,
    })
    idp.accounts.set('sub-1', {
      email: 'oidc.person@example.com',
      email_verified: true,
      name: 'OIDC Person',
    })

    const start = async () => {
      idp.loginAs = 'sub-1'
      const login = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/login' })
      expect(login.statusCode).toBe(302)
      const line = setCookies(login).find((l) => l.startsWith('__Host-oidc_state='))
      expectHostCookie(line)
      const state = login.cookies.find((c) => c.name === '__Host-oidc_state')!.value
      const callback = await idp.authorize(String(login.headers.location))
      return { state, url: `${callback.pathname}${callback.search}` }
    }

    const unprefixed = await start()
    const refused = await t.app.inject({
      method: 'GET',
      url: unprefixed.url,
      cookies: { oidc_state: unprefixed.state },
    })
    expect(refused.statusCode).toBe(302)
    expect(new URL(String(refused.headers.location)).searchParams.get('error')).toBe(
      'INVALID_STATE',
    )

    const attempt = await start()
    const done = await t.app.inject({
      method: 'GET',
      url: attempt.url,
      cookies: { '__Host-oidc_state': attempt.state },
    })
    expect(done.statusCode, done.body).toBe(302)
    expect(done.headers.location).toBe(`${HTTPS_URL}/`)
    const names = setCookies(done).map((l) => l.split('=')[0])
    expect(names).toEqual(
      expect.arrayContaining([
        '__Host-oidc_state',
        '__Host-token',
        '__Host-csrf_token',
        '__Host-device',
      ]),
    )
    for (const line of setCookies(done)) expectHostCookie(line)
  })

  it('the OpenAPI document names the prefixed session cookie', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    expect(doc.components.securitySchemes.cookieAuth.name).toBe('__Host-token')
  })
})

describe('cookies when PUBLIC_URL is http', () => {
  const t = useTestApp()
  it('keep their names, without Secure; the prefixed names are not read', async () => {
    const { email } = await createUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: DEFAULT_PASSWORD },
    })
    const lines = setCookies(response)
    expect(lines.map((l) => l.split('=')[0]).sort()).toEqual(['csrf_token', 'device', 'token'])
    for (const line of lines) expect(line).not.toMatch(/Secure/)
    const token = response.json().token as string
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', cookies: { token } })).statusCode,
    ).toBe(200)
    expectReason(
      await t.app.inject({
        method: 'GET',
        url: '/api/users/me',
        cookies: { '__Host-token': token },
      }),
      401,
      'UNAUTHORIZED',
    )
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    expect(doc.components.securitySchemes.cookieAuth.name).toBe('token')
  })
})
