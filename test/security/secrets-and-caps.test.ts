/**
 * Secrets and caps of admin-configured servers:
 * - a stored write-only secret (SMTP password, AI key, OIDC client secret) never follows a
 *   changed destination — changing SMTP host/port, the AI base_url's origin or the OIDC issuer_url
 *   without sending the secret again is refused with 400 VALIDATION_FAILED on the secret field;
 * - answers of admin-configured servers are read up to a byte cap (AI model list, OIDC
 *   discovery and the rest), with a clear error and bounded memory.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
  withAdminProof,
} from '../helpers/factories.js'
import { callbackUrlFor, createProvider, errorCodeOf } from '../helpers/oidc-flow.js'
import { startOidcProvider, type OidcProviderStandIn } from '../helpers/oidc-provider.js'
import { startOpenAiStandIn, type OpenAiStandIn } from '../helpers/openai-stand-in.js'
import { AI_API_KEY, OIDC_CLIENT_SECRET, SMTP_PASSWORD } from '../helpers/secret-scan.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
let ai: OpenAiStandIn
let idp: OidcProviderStandIn
let hugeDiscovery: http.Server
let hugeIssuer: string

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  ai = await startOpenAiStandIn(AI_API_KEY)
  idp = await startOidcProvider({
    redirectUris: [callbackUrlFor('moving'), callbackUrlFor('huge')],
  })
  // A "provider" whose discovery document is 20 MB of padding.
  hugeDiscovery = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write(`{"issuer":"${hugeIssuer}","padding":"`)
    const chunk = 'x'.repeat(64 * 1024)
    let sent = 0
    const pump = (): void => {
      while (sent < 20 * 1024 * 1024) {
        sent += chunk.length
        if (!response.write(chunk)) return void response.once('drain', pump)
      }
      response.end('"}')
    }
    pump()
  })
  await new Promise<void>((resolve) => hugeDiscovery.listen(0, '127.0.0.1', resolve))
  hugeIssuer = `http://127.0.0.1:${(hugeDiscovery.address() as AddressInfo).port}`
})
afterAll(async () => {
  await ai?.close()
  await idp?.close()
  hugeDiscovery?.closeAllConnections()
  await new Promise((resolve) => hugeDiscovery?.close(resolve))
})

const put = (url: string, payload: object) =>
  t.app.inject({
    method: 'PUT',
    url,
    headers: bearer(admin.token),
    payload: withAdminProof(payload, url),
  })
const storedSection = async (key: string) =>
  JSON.parse(
    (
      await t.deps.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', key)
        .executeTakeFirstOrThrow()
    ).value,
  )

describe('write-only secrets and a changed destination', () => {
  it('the_smtp_password_never_follows_a_new_host_or_port, under a burst of attempts', async () => {
    expect(
      (
        await put('/api/admin/settings/smtp', {
          host: 'smtp.example.com',
          port: 587,
          username: 'mailer',
          password: SMTP_PASSWORD,
        })
      ).statusCode,
    ).toBe(200)
    const before = await storedSection('smtp')
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        put(
          '/api/admin/settings/smtp',
          i % 2 === 0 ? { host: `attacker-${i}.example.net` } : { port: 2525 + i },
        ),
      ),
    )
    for (const response of attempts) {
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details).toEqual([
        {
          field: 'password',
          message: 'must be sent again (or null to clear it) when host or port change',
          code: 'invalid',
        },
      ])
    }
    expect(await storedSection('smtp')).toEqual(before)
    // Sent again, or cleared explicitly: accepted.
    expect(
      (
        await put('/api/admin/settings/smtp', { host: 'mail.example.org', password: SMTP_PASSWORD })
      ).json(),
    ).toMatchObject({
      host: 'mail.example.org',
      password_set: true,
    })
    expect(
      (await put('/api/admin/settings/smtp', { port: 465, password: null })).json(),
    ).toMatchObject({ port: 465, password_set: false })
    // Without a stored password there is nothing to follow.
    expect((await put('/api/admin/settings/smtp', { host: 'other.example.org' })).statusCode).toBe(
      200,
    )
  })

  it('the_ai_key_never_follows_base_url_to_another_origin', async () => {
    expect(
      (
        await put('/api/admin/settings/ai', {
          base_url: 'https://api.example.com/v1',
          api_key: AI_API_KEY,
        })
      ).statusCode,
    ).toBe(200)
    const moved = await put('/api/admin/settings/ai', {
      base_url: 'https://attacker.example.net/v1',
    })
    expectReason(moved, 400, 'VALIDATION_FAILED')
    expect(moved.json().details).toEqual([
      {
        field: 'api_key',
        message: "must be sent again (or null to clear it) when base_url's origin changes",
        code: 'invalid',
      },
    ])
    expect((await storedSection('ai')).base_url).toBe('https://api.example.com/v1')
    // Another path on the same origin keeps the key.
    expect(
      (await put('/api/admin/settings/ai', { base_url: 'https://api.example.com/v2' })).json(),
    ).toMatchObject({ api_key_set: true })
    expect(
      (
        await put('/api/admin/settings/ai', {
          base_url: 'https://other.example.org/v1',
          api_key: null,
        })
      ).json(),
    ).toMatchObject({
      api_key_set: false,
    })
  })

  it('the_oidc_client_secret_never_follows_a_new_issuer_url', async () => {
    const provider = await createProvider(t, admin.token, idp, { provider_key: 'moving' })
    const patch = (payload: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/oidc-providers/${provider.id}`,
        headers: bearer(admin.token),
        payload: withAdminProof(payload, '/api/oidc-providers/x'),
      })
    const moved = await patch({ issuer_url: 'https://attacker.example.net' })
    expectReason(moved, 400, 'VALIDATION_FAILED')
    expect(moved.json().details).toEqual([
      {
        field: 'client_secret',
        message: 'must be sent again (or null for a public client) when issuer_url changes',
        code: 'invalid',
      },
    ])
    expect(
      (
        await patch({ issuer_url: 'https://idp.example.org', client_secret: OIDC_CLIENT_SECRET })
      ).json(),
    ).toMatchObject({
      issuer_url: 'https://idp.example.org',
      client_secret_set: true,
    })
  })
})

describe('byte caps on answers of admin-configured servers', () => {
  it('an_oversized_ai_model_list_is_refused_with_a_clear_error_and_bounded_memory', async () => {
    expect(
      (await put('/api/admin/settings/ai', { base_url: ai.baseUrl, api_key: AI_API_KEY }))
        .statusCode,
    ).toBe(200)
    ai.mode = 'oversized'
    try {
      const before = process.memoryUsage().rss
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/admin/settings/ai/models',
        headers: bearer(admin.token),
      })
      const grown = process.memoryUsage().rss - before
      expectReason(response, 502, 'UPSTREAM_FAILED')
      expect(response.json().message).toBe(
        "The AI provider's answer is larger than 4194304 bytes; it was not read.",
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      // Of 150 MB the server got rid of little more than the cap (the rest was never pulled).
      expect(ai.oversizedBytesWritten).toBeLessThan(24 * 1024 * 1024)
      expect(grown).toBeLessThan(96 * 1024 * 1024)
    } finally {
      ai.mode = 'ok'
    }
  })

  it('an_oversized_oidc_discovery_document_fails_the_sign_in_without_being_read', async () => {
    await createProvider(t, admin.token, { issuer: hugeIssuer } as OidcProviderStandIn, {
      provider_key: 'huge',
    })
    const login = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/huge/login' })
    expect(errorCodeOf(login)).toBe('PROVIDER_ERROR')
    // The operator's log says why, in words of ours.
    expect(
      t.logs.some((line) =>
        line.includes("the provider's answer is larger than 1048576 bytes; it was not read"),
      ),
    ).toBe(true)
    const audited = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'auth.oidc_failed')
      .execute()
    expect(audited.some((e) => JSON.parse(e.metadata).provider_key === 'huge')).toBe(true)
  })
})
