/**
 * Attacks on OIDC sign-in, against a real provider in the test process: forged, missing, moved,
 * altered and expired state; a replayed authorization code; ID tokens that were altered, signed
 * with another key, or signed properly with the wrong nonce, audience, issuer or expiry. Each ends
 * on the login page with a code, without a session and without the account the attacker wanted.
 * Every response and log line (at debug level) is scanned for the client secret.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, useTestApp } from '../helpers/app.js'
import {
  cookieValue,
  createSignedInUser,
  createUser,
  uniqueEmail,
  type SignedIn,
  type TestUser,
} from '../helpers/factories.js'
import {
  beginOidcAttempt,
  callbackUrlFor,
  createProvider,
  errorCodeOf,
  PUBLIC_URL,
  sendCallback,
  sessionTokenOf,
  type OidcAttempt,
} from '../helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../helpers/oidc-provider.js'
import {
  OIDC_CLIENT_SECRET,
  OTHER_OIDC_CLIENT_SECRET,
  scanResponsesForSecrets,
} from '../helpers/secret-scan.js'

const t = useTestApp({ env: { LOG_LEVEL: 'debug' } })
scanResponsesForSecrets(t, [OIDC_CLIENT_SECRET, OTHER_OIDC_CLIENT_SECRET])

let idp: OidcProviderStandIn
let admin: TestUser & SignedIn
beforeAll(async () => {
  idp = await startOidcProvider({
    redirectUris: ['acme', 'other'].map(callbackUrlFor),
    claimsInIdToken: true,
  })
  admin = await createSignedInUser(t, { isAdmin: true })
  await createProvider(t, admin.token, idp, { provider_key: 'acme', auto_create_users: true })
  await createProvider(t, admin.token, idp, { provider_key: 'other', auto_create_users: true })
})
afterAll(async () => idp?.close())

/** A person at the provider, and an attempt that went through the provider as them. */
async function attemptAs(
  claims: { email: string; email_verified: boolean },
  providerKey = 'acme',
): Promise<OidcAttempt> {
  const sub = `sub-${uniqueEmail()}`
  idp.accounts.set(sub, claims)
  idp.loginAs = sub
  return beginOidcAttempt(t, idp, providerKey)
}

const verified = () => ({ email: uniqueEmail('person'), email_verified: true })
const withParam = (url: URL, name: string, value: string | null) => {
  const changed = new URL(url)
  if (value === null) changed.searchParams.delete(name)
  else changed.searchParams.set(name, value)
  return changed
}
const userCount = async () =>
  Number(
    (
      await t.deps.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

function expectRefused(response: LightMyRequestResponse, code: string): void {
  expect(errorCodeOf(response)).toBe(code)
  expect(cookieValue(response, 'token')).toBeUndefined()
  expect(cookieValue(response, 'csrf_token')).toBeUndefined()
  // The state cookie is spent whatever the outcome.
  expect(response.cookies.find((c) => c.name === 'oidc_state')).toMatchObject({
    value: '',
    maxAge: 0,
  })
}

describe('state', () => {
  it('a callback whose state differs from the cookie is refused before the code is redeemed — the real one still works', async () => {
    const attempt = await attemptAs(verified())
    const tokenRequests = idp.tokenRequests
    expectRefused(
      await sendCallback(
        t,
        withParam(attempt.callbackUrl, 'state', 'forged-state'),
        attempt.stateCookie,
      ),
      'INVALID_STATE',
    )
    expectRefused(
      await sendCallback(t, withParam(attempt.callbackUrl, 'state', null), attempt.stateCookie),
      'INVALID_STATE',
    )
    expect(idp.tokenRequests).toBe(tokenRequests)
    sessionTokenOf(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie))
  })

  it('without the cookie, or with one that is garbage or altered, the callback is refused', async () => {
    const attempt = await attemptAs(verified())
    const [payload, mac] = attempt.stateCookie.split('.') as [string, string]
    const flip = (text: string) =>
      `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.at(-1)}`
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
        s: attempt.callbackUrl.searchParams.get('state'),
      }),
    ).toString('base64url')
    for (const cookie of [
      undefined,
      '',
      'x',
      'a.b.c',
      `${payload}.${flip(mac)}`,
      `${flip(payload)}.${mac}`,
      `${payload}`,
      `${forgedPayload}.${mac}x`,
    ]) {
      expectRefused(await sendCallback(t, attempt.callbackUrl, cookie), 'INVALID_STATE')
    }
  })

  it("another attempt's cookie, or another provider's, does not fit", async () => {
    const first = await attemptAs(verified())
    const second = await attemptAs(verified())
    expectRefused(await sendCallback(t, first.callbackUrl, second.stateCookie), 'INVALID_STATE')
    const elsewhere = await attemptAs(verified(), 'other')
    expectRefused(
      await sendCallback(t, new URL(first.callbackUrl), elsewhere.stateCookie),
      'INVALID_STATE',
    )
    // The other provider's callback with its own code and cookie, but sent to acme's callback.
    const moved = new URL(`${callbackUrlFor('acme')}${elsewhere.callbackUrl.search}`)
    expectRefused(await sendCallback(t, moved, elsewhere.stateCookie), 'INVALID_STATE')
  })

  it('the cookie expires after 10 minutes, whatever the browser keeps', async () => {
    const attempt = await attemptAs(verified())
    t.clock.advance(10 * 60 + 1)
    expectRefused(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie), 'INVALID_STATE')
  })

  it('is Secure and __Host- prefixed (Path=/, as the prefix requires) when PUBLIC_URL is https', async () => {
    const secure = await startTestApp({
      env: { PUBLIC_URL: 'https://sso.example.com/switchboard' },
    })
    try {
      const owner = await createSignedInUser(secure, { isAdmin: true })
      await createProvider(secure, owner.token, idp, { provider_key: 'acme' })
      const response = await secure.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/login' })
      expect(response.statusCode).toBe(302)
      expect(response.cookies.find((c) => c.name === '__Host-oidc_state')).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        maxAge: 600,
      })
      const redirectUri = new URL(String(response.headers.location)).searchParams.get(
        'redirect_uri',
      )
      expect(redirectUri).toBe('https://sso.example.com/switchboard/api/auth/oidc/acme/callback')
    } finally {
      await secure.close()
    }
  })
})

describe('a replayed authorization code', () => {
  it('is refused by the provider: an error redirect and no second session', async () => {
    const attempt = await attemptAs(verified())
    sessionTokenOf(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie))
    const sessions = Number(
      (
        await t.deps.db
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
    const replay = await sendCallback(t, attempt.callbackUrl, attempt.stateCookie)
    expectRefused(replay, 'PROVIDER_ERROR')
    const after = Number(
      (
        await t.deps.db
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
    expect(after).toBe(sessions)
    const warning = t.logs
      .map((line) => JSON.parse(line))
      .find((l) => l.request_id === replay.headers['x-request-id'] && l.oidc)
    expect(warning.oidc).toEqual({
      error: 'PROVIDER_ERROR',
      detail: 'the provider answered HTTP 400 (invalid_grant)',
    })
  })
})

describe('a tampered ID token', () => {
  let victim: TestUser
  beforeAll(async () => {
    victim = await createUser(t, { email: uniqueEmail('victim') })
  })

  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const now = () => Math.floor(Date.now() / 1000)
  const cases: Array<[string, (token: string) => Promise<string>]> = [
    [
      "claims altered under the provider's signature (the victim's email)",
      async (token) => {
        const [header, , signature] = token.split('.')
        return `${header}.${encode({ ...idp.decode(token).claims, email: victim.email, email_verified: true })}.${signature}`
      },
    ],
    [
      'signed with another key under the same key id',
      async (token) => idp.sign(idp.decode(token), 'foreign'),
    ],
    [
      'unsigned (alg none)',
      async (token) => `${encode({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.`,
    ],
    [
      'a different nonce, properly signed',
      async (token) =>
        idp.sign(
          { ...idp.decode(token), claims: { ...idp.decode(token).claims, nonce: 'another-nonce' } },
          'provider',
        ),
    ],
    [
      'another audience, properly signed',
      async (token) =>
        idp.sign(
          { ...idp.decode(token), claims: { ...idp.decode(token).claims, aud: 'another-client' } },
          'provider',
        ),
    ],
    [
      'another issuer, properly signed',
      async (token) =>
        idp.sign(
          {
            ...idp.decode(token),
            claims: { ...idp.decode(token).claims, iss: 'https://evil.example.com' },
          },
          'provider',
        ),
    ],
    [
      'expired, properly signed',
      async (token) =>
        idp.sign(
          {
            ...idp.decode(token),
            claims: { ...idp.decode(token).claims, iat: now() - 7200, exp: now() - 3600 },
          },
          'provider',
        ),
    ],
  ]

  for (const [name, rewrite] of cases) {
    it(`is refused: ${name}`, async () => {
      const claims = verified()
      const users = await userCount()
      idp.rewriteIdToken = rewrite
      try {
        const attempt = await attemptAs(claims)
        const response = await sendCallback(t, attempt.callbackUrl, attempt.stateCookie)
        expectRefused(response, 'PROVIDER_ERROR')
        const warning = t.logs
          .map((line) => JSON.parse(line))
          .find((l) => l.request_id === response.headers['x-request-id'] && l.oidc)
        expect(warning.oidc.detail).toEqual(expect.any(String))
      } finally {
        idp.rewriteIdToken = null
      }
      expect(await userCount()).toBe(users)
      const row = await t.deps.db
        .selectFrom('users')
        .select(['oidc_sub'])
        .where('id', '=', victim.user.id)
        .executeTakeFirstOrThrow()
      expect(row.oidc_sub).toBeNull()
    })
  }

  it('the untouched token signs in (the rewrite hook itself is harmless)', async () => {
    idp.rewriteIdToken = async (token) => token
    try {
      const attempt = await attemptAs(verified())
      sessionTokenOf(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie))
    } finally {
      idp.rewriteIdToken = null
    }
  })
})

describe('what the redirect says', () => {
  it("carries only the code: never the provider's message, a cause or a stack", async () => {
    idp.loginAs = null
    const attempt = await beginOidcAttempt(t, idp, 'acme')
    expect(attempt.callbackUrl.searchParams.get('error_description')).toBe('The person declined.')
    const response = await sendCallback(t, attempt.callbackUrl, attempt.stateCookie)
    expect(response.headers.location).toBe(`${PUBLIC_URL}/login?error=ACCESS_DENIED`)
    expect(t.logs.some((line) => line.includes('The person declined.'))).toBe(false)
  })

  it('no log line holds the authorization code or the state', async () => {
    const attempt = await attemptAs(verified())
    sessionTokenOf(await sendCallback(t, attempt.callbackUrl, attempt.stateCookie))
    for (const value of [
      attempt.callbackUrl.searchParams.get('code')!,
      attempt.callbackUrl.searchParams.get('state')!,
      attempt.stateCookie,
    ]) {
      expect(t.logs.some((line) => line.includes(value))).toBe(false)
    }
  })
})

describe('malformed requests', () => {
  it('a repeated or oversized callback parameter, or an over-long path segment, gets the JSON envelope, never a 500', async () => {
    const cases: Array<[string, number]> = [
      ['/api/auth/oidc/acme/callback?state=a&state=b&code=c', 400],
      [`/api/auth/oidc/acme/callback?code=${'c'.repeat(5000)}`, 400],
      // Like any key over 100 characters (not the router's bare 404).
      [`/api/auth/oidc/${'a'.repeat(300)}/login`, 400],
    ]
    for (const [url, status] of cases) {
      const response = await t.app.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(status)
      expect(response.json().reason, url).toBe('VALIDATION_FAILED')
    }
    expect(
      errorCodeOf(await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/callback' })),
    ).toBe('INVALID_STATE')
    expect(
      errorCodeOf(
        await t.app.inject({ method: 'GET', url: '/api/auth/oidc/acme/callback?code=%zz&state=%' }),
      ),
    ).toBe('INVALID_STATE')
  })
})

describe('rate limits', () => {
  it('each browser route allows 100 requests per 15 minutes per IP, then 429 RATE_LIMITED', async () => {
    const remoteAddress = '198.51.100.7'
    for (let i = 0; i < 100; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/auth/oidc/unknown/login',
        remoteAddress,
      })
      expect(response.statusCode).toBe(302)
    }
    const limited = await t.app.inject({
      method: 'GET',
      url: '/api/auth/oidc/unknown/login',
      remoteAddress,
    })
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toMatchObject({ reason: 'RATE_LIMITED', retryAfter: expect.any(Number) })
    const callback = await t.app.inject({
      method: 'GET',
      url: '/api/auth/oidc/unknown/callback',
      remoteAddress,
    })
    expect(callback.statusCode).toBe(302)
    expect(callback.headers['ratelimit-remaining']).toBe('99')
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: '/api/auth/oidc/unknown/login',
      remoteAddress: '198.51.100.8',
    })
    expect(elsewhere.statusCode).toBe(302)
    // Each route's limit counts on its own: first-run setup (10 per IP) is not spent by these.
    const setup = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      remoteAddress,
      payload: {},
    })
    expect(setup.headers['ratelimit-remaining']).toBe('9')
  })
})
