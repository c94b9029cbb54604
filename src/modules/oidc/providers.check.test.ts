/**
 * POST /api/oidc-providers/check — the callback URL for a key not saved yet, and the
 * issuer's discovery document fetched from a local identity provider and checked; every failure
 * an answer with its kind, nothing stored.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { startOidcProvider, type OidcProviderStandIn } from '../../../test/helpers/oidc-provider.js'

const t = useTestApp()

let admin: TestUser & SignedIn
let member: TestUser & SignedIn
let idp: OidcProviderStandIn
/** Answers every request with a discovery document that names another issuer, or after a delay. */
let impostor: http.Server
let impostorUrl: string

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  member = await createSignedInUser(t)
  idp = await startOidcProvider({ redirectUris: ['http://127.0.0.1/api/auth/oidc/acme/callback'] })
  impostor = http.createServer((_request, response) => {
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({
        issuer: 'https://someone-else.example.com',
        authorization_endpoint: 'x',
        token_endpoint: 'y',
      }),
    )
  })
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve))
  impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`
})

afterAll(async () => {
  await idp?.close()
  await new Promise((resolve) => impostor?.close(resolve))
})

const check = (payload: Record<string, unknown>, token = admin.token) =>
  t.app.inject({
    method: 'POST',
    url: '/api/oidc-providers/check',
    headers: bearer(token),
    payload,
  })

describe('POST /api/oidc-providers/check', () => {
  it('answers the callback URL for a key before anything is saved', async () => {
    const response = await check({ provider_key: 'corp-sso' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      callback_url: `${t.deps.config.publicUrl}/api/auth/oidc/corp-sso/callback`,
      issuer: null,
    })
  })

  it("fetches and checks the issuer's discovery document", async () => {
    const before = idp.discoveryRequests
    const response = await check({ provider_key: 'acme', issuer_url: idp.issuer })
    expect(response.statusCode).toBe(200)
    expect(response.json().issuer).toEqual({
      ok: true,
      issuer: idp.issuer,
      authorization_endpoint: expect.stringContaining(idp.issuer),
      token_endpoint: expect.stringContaining(idp.issuer),
      jwks_uri: expect.stringContaining(idp.issuer),
    })
    expect(idp.discoveryRequests).toBe(before + 1)
    // Nothing is kept: a second check asks again.
    await check({ issuer_url: idp.issuer })
    expect(idp.discoveryRequests).toBe(before + 2)
  })

  it('says why a discovery fails: no document there, another issuer named, nobody listening', async () => {
    const missing = (await check({ issuer_url: `${idp.issuer}/no-such-realm` })).json().issuer
    expect(missing).toMatchObject({ ok: false, problem: 'invalid' })
    expect(missing.detail).toMatch(/404|provider answered/)

    const other = (await check({ issuer_url: impostorUrl })).json().issuer
    expect(other).toMatchObject({ ok: false, problem: 'invalid' })
    expect(other.detail).toMatch(/issuer/i)

    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect((await check({ issuer_url: `http://127.0.0.1:${port}` })).json().issuer).toMatchObject({
      ok: false,
      problem: 'unreachable',
    })
  })

  it('refuses what the provider rules refuse (400), and is for administrators only', async () => {
    const plain = await check({ issuer_url: 'http://idp.example.com' })
    expect(plain.statusCode).toBe(400)
    expect(plain.json().details).toEqual([expect.objectContaining({ field: 'issuer_url' })])
    expect((await check({ provider_key: 'login' })).statusCode).toBe(400)
    expect((await check({})).statusCode).toBe(400)
    expect((await check({ provider_key: 'corp' }, member.token)).statusCode).toBe(403)
  })
})
