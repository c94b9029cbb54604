/**
 * Drives OIDC sign-in end to end: the app's login route (app.inject), the provider stand-in over
 * real HTTP (authorize), then the app's callback with the state cookie — while the app itself
 * talks to the provider over real HTTP for discovery, the token and the keys.
 */
import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { TestContext } from './app.js'
import { bearer, cookieValue, DEFAULT_PASSWORD } from './factories.js'
import { OIDC_CLIENT_ID, type OidcProviderStandIn } from './oidc-provider.js'
import { OIDC_CLIENT_SECRET } from './secret-scan.js'

export const PUBLIC_URL = 'http://switchboard.test'

export function callbackUrlFor(providerKey: string): string {
  return `${PUBLIC_URL}/api/auth/oidc/${providerKey}/callback`
}

/** Creates a provider through the API, pointing at the stand-in; returns its view. */
export async function createProvider(
  t: TestContext,
  adminToken: string,
  standIn: OidcProviderStandIn,
  fields: Record<string, unknown> & { provider_key: string },
  // The JSON body of the final redirect target, asserted by the calling test.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<Record<string, any>> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/oidc-providers',
    headers: bearer(adminToken),
    payload: {
      name: 'Stand-in',
      issuer_url: standIn.issuer,
      client_id: OIDC_CLIENT_ID,
      client_secret: OIDC_CLIENT_SECRET,
      // The administrator's proof (a provider is credential-equivalent): the test default.
      current_password: DEFAULT_PASSWORD,
      ...fields,
    },
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}

export interface OidcAttempt {
  login: LightMyRequestResponse
  stateCookie: string
  /** Where the provider sent the browser back to: the app's callback with code and state. */
  callbackUrl: URL
}

/** Starts at the app and goes through the provider as `standIn.loginAs`. */
export async function beginOidcAttempt(
  t: TestContext,
  standIn: OidcProviderStandIn,
  providerKey: string,
): Promise<OidcAttempt> {
  const login = await t.app.inject({ method: 'GET', url: `/api/auth/oidc/${providerKey}/login` })
  expect(login.statusCode, login.body).toBe(302)
  const stateCookie = cookieValue(login, 'oidc_state')
  expect(stateCookie).toBeTruthy()
  const callbackUrl = await standIn.authorize(String(login.headers.location))
  return { login, stateCookie: stateCookie!, callbackUrl }
}

/** The browser arriving at the app's callback (with the state cookie unless told otherwise). */
export function sendCallback(
  t: TestContext,
  callbackUrl: URL,
  stateCookie?: string,
): Promise<LightMyRequestResponse> {
  expect(callbackUrl.origin).toBe(PUBLIC_URL)
  return t.app.inject({
    method: 'GET',
    url: `${callbackUrl.pathname}${callbackUrl.search}`,
    ...(stateCookie !== undefined && { cookies: { oidc_state: stateCookie } }),
  })
}

/** The whole sign-in as `sub`; returns the callback's response. */
export async function signInWithOidc(
  t: TestContext,
  standIn: OidcProviderStandIn,
  providerKey: string,
  sub: string,
): Promise<LightMyRequestResponse> {
  standIn.loginAs = sub
  const attempt = await beginOidcAttempt(t, standIn, providerKey)
  return sendCallback(t, attempt.callbackUrl, attempt.stateCookie)
}

/** The `?error=` code of a failed sign-in's redirect (asserting it is one). */
export function errorCodeOf(response: LightMyRequestResponse): string | null {
  expect(response.statusCode, response.body).toBe(302)
  const location = new URL(String(response.headers.location))
  expect(`${location.origin}${location.pathname}`).toBe(`${PUBLIC_URL}/login`)
  expect([...location.searchParams.keys()]).toEqual(['error'])
  return location.searchParams.get('error')
}

/** The access JWT a successful sign-in set, after checking it went to the app's start page. */
export function sessionTokenOf(response: LightMyRequestResponse): string {
  expect(response.statusCode, response.body).toBe(302)
  expect(response.headers.location).toBe(`${PUBLIC_URL}/`)
  const token = cookieValue(response, 'token')
  expect(token).toBeTruthy()
  return token!
}
