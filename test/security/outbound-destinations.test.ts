/**
 * Admin settings cannot point the server at link-local or metadata addresses,
 * nor — unless the operator allows private networks (OUTBOUND_ALLOW_PRIVATE_NETWORKS, off here) —
 * at private ranges or loopback. Literal addresses are refused when saved (400 on the field); names
 * are judged when resolved, so a name that leads to a refused address is never connected to.
 * Also item 7's "AI base_url must be https except loopback".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestContext } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
  DEFAULT_PASSWORD,
  withAdminProof,
} from '../helpers/factories.js'
import { startOpenAiStandIn, type OpenAiStandIn } from '../helpers/openai-stand-in.js'
import { AI_API_KEY, SMTP_PASSWORD, SMTP_USERNAME } from '../helpers/secret-scan.js'
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-server.js'

let strict: TestContext
let lenient: TestContext
let admin: TestUser & SignedIn
let lenientAdmin: TestUser & SignedIn
let smtp: SmtpStandIn
let ai: OpenAiStandIn

beforeAll(async () => {
  strict = await startTestApp({
    env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false', RATE_LIMIT_GENERAL: '0' },
  })
  lenient = await startTestApp({
    env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_GENERAL: '0' },
  })
  admin = await createSignedInUser(strict, { isAdmin: true })
  lenientAdmin = await createSignedInUser(lenient, { isAdmin: true })
  smtp = await startSmtpStandIn()
  ai = await startOpenAiStandIn(AI_API_KEY)
})
afterAll(async () => {
  await strict?.close()
  await lenient?.close()
  await smtp?.close()
  await ai?.close()
})

const put = (t: TestContext, token: string, url: string, payload: object) =>
  t.app.inject({
    method: 'PUT',
    url,
    headers: bearer(token),
    payload: withAdminProof(payload, url),
  })
const fieldOf = (response: { json(): { details: Array<{ field: string }> } }) =>
  response.json().details.map((d) => d.field)

const METADATA_AND_LINK_LOCAL = [
  '169.254.169.254',
  '169.254.10.1',
  '[fe80::1]',
  '[fd00:ec2::254]',
  '100.100.100.200',
  '[::ffff:169.254.169.254]',
  '0.0.0.0',
]
const PRIVATE = [
  '10.0.0.5',
  '192.168.1.10',
  '172.16.0.1',
  '127.0.0.1',
  '[::1]',
  '[fd12:3456::1]',
  '100.64.0.1',
]

describe('AI base_url', () => {
  it('refuses_link_local_and_metadata_addresses_always_and_private_ranges_unless_the_operator_allows_them', async () => {
    for (const host of [...METADATA_AND_LINK_LOCAL, ...PRIVATE]) {
      const response = await put(strict, admin.token, '/api/admin/settings/ai', {
        base_url: `https://${host}/v1`,
      })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(fieldOf(response), host).toEqual(['base_url'])
    }
    for (const host of METADATA_AND_LINK_LOCAL) {
      const response = await put(lenient, lenientAdmin.token, '/api/admin/settings/ai', {
        base_url: `https://${host}/v1`,
      })
      expectReason(response, 400, 'VALIDATION_FAILED')
    }
    expect(
      (
        await put(lenient, lenientAdmin.token, '/api/admin/settings/ai', {
          base_url: 'https://10.0.0.5/v1',
        })
      ).statusCode,
    ).toBe(200)
  })

  it('must_be_https_except_on_loopback', async () => {
    for (const url of ['http://api.example.com/v1', 'http://10.0.0.5/v1']) {
      const response = await put(lenient, lenientAdmin.token, '/api/admin/settings/ai', {
        base_url: url,
      })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(response.json().details[0].message).toMatch(/https/)
    }
    expect(
      (
        await put(lenient, lenientAdmin.token, '/api/admin/settings/ai', {
          base_url: ai.baseUrl,
          api_key: AI_API_KEY,
        })
      ).statusCode,
    ).toBe(200)
  })

  it('never_connects_to_a_name_that_resolves_to_a_refused_address', async () => {
    // localhost is a name: accepted when saved, judged when resolved — and refused, so nothing is
    // sent.
    const base = ai.baseUrl.replace('127.0.0.1', 'localhost')
    expect(
      (
        await put(strict, admin.token, '/api/admin/settings/ai', {
          base_url: base,
          api_key: AI_API_KEY,
          model: 'gpt-4o',
        })
      ).statusCode,
    ).toBe(200)
    const before = ai.calls.length
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        strict.app.inject({
          method: 'GET',
          url: '/api/admin/settings/ai/models',
          headers: bearer(admin.token),
        }),
      ),
    )
    for (const response of responses) {
      expectReason(response, 502, 'UPSTREAM_FAILED')
      expect(response.json().message).toMatch(
        /^The AI provider was not contacted: the destination is a private or loopback address/,
      )
    }
    expect(ai.calls.length).toBe(before)
  })
})

describe('SMTP host', () => {
  const LOOPBACK = ['127.0.0.1', '::1']
  it('refuses_link_local_metadata_and_private_literals_and_tells_only_the_stage_for_names', async () => {
    const refused = [...METADATA_AND_LINK_LOCAL, ...PRIVATE]
      .map((h) => h.replace(/^\[|\]$/g, ''))
      .filter((h) => !LOOPBACK.includes(h))
    for (const host of refused) {
      const response = await put(strict, admin.token, '/api/admin/settings/smtp', { host })
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(fieldOf(response), host).toEqual(['host'])
    }
    // A name that resolves to a private address is refused when resolved, before any byte is sent.
    const configured = await put(strict, admin.token, '/api/admin/settings/smtp', {
      enabled: true,
      host: 'private.example.test',
      port: smtp.port,
      from_address: 'sb@example.com',
    })
    expect(configured.statusCode).toBe(200)
    const test = await strict.app.inject({
      method: 'POST',
      url: '/api/admin/settings/smtp/test',
      headers: bearer(admin.token),
      payload: {},
    })
    expectReason(test, 502, 'UPSTREAM_FAILED')
    expect(smtp.clientBytes()).toBe('')
  })

  // A relay on this machine is how a self-hosted instance usually mails — loopback works
  // with the default OUTBOUND_ALLOW_PRIVATE_NETWORKS=false, by literal and by name.
  it('a_relay_on_loopback_receives_the_test_mail_with_default_settings', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const configured = await put(strict, admin.token, '/api/admin/settings/smtp', {
        enabled: true,
        host,
        port: smtp.port,
        from_address: 'sb@example.com',
      })
      expect(configured.statusCode, host).toBe(200)
      const before = smtp.received.length
      const test = await strict.app.inject({
        method: 'POST',
        url: '/api/admin/settings/smtp/test',
        headers: bearer(admin.token),
        payload: { to: 'relay-check@example.com' },
      })
      expect(test.statusCode, `${host}: ${test.body}`).toBe(200)
      expect(smtp.received.length).toBe(before + 1)
      expect(smtp.received.at(-1)!.to).toEqual(['relay-check@example.com'])
    }
    // The form's "allow signing in without TLS to a server on this machine" works as it says: a
    // relay on loopback that wants credentials and offers no TLS receives the mail.
    const authenticating = await startSmtpStandIn({
      credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
    })
    try {
      const withAuth = await put(strict, admin.token, '/api/admin/settings/smtp', {
        enabled: true,
        host: '127.0.0.1',
        port: authenticating.port,
        username: SMTP_USERNAME,
        password: SMTP_PASSWORD,
        plaintext_auth_on_loopback: true,
        from_address: 'sb@example.com',
      })
      expect(withAuth.statusCode).toBe(200)
      const test = await strict.app.inject({
        method: 'POST',
        url: '/api/admin/settings/smtp/test',
        headers: bearer(admin.token),
        payload: {},
      })
      expect(test.statusCode, test.body).toBe(200)
      expect(authenticating.received.map((m) => m.username)).toEqual([SMTP_USERNAME])
    } finally {
      await authenticating.close()
    }
    // Loopback only: the AI and OIDC clients still refuse it without the operator's setting.
    const ai = await put(strict, admin.token, '/api/admin/settings/ai', {
      base_url: 'http://127.0.0.1:9/v1',
    })
    expectReason(ai, 400, 'VALIDATION_FAILED')
  })
})

describe('OIDC issuer_url', () => {
  it('refuses_link_local_and_metadata_issuers', async () => {
    for (const t of [strict, lenient]) {
      const token = t === strict ? admin.token : lenientAdmin.token
      for (const host of ['169.254.169.254', '[fd00:ec2::254]']) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/oidc-providers',
          headers: bearer(token),
          payload: {
            current_password: DEFAULT_PASSWORD,
            provider_key: `p${Math.random().toString(36).slice(2, 8)}`,
            name: 'Metadata',
            issuer_url: `https://${host}`,
            client_id: 'x',
            client_secret: null,
          },
        })
        expectReason(response, 400, 'VALIDATION_FAILED')
        expect(fieldOf(response)).toEqual(['issuer_url'])
      }
    }
  })
})

describe('AI allow_private_network', () => {
  it('lets an administrator put the AI provider (only) on the local network, over plain http there', async () => {
    const ollama = 'http://192.168.1.20:11434/v1'
    const refused = await put(strict, admin.token, '/api/admin/settings/ai', { base_url: ollama })
    expectReason(refused, 400, 'VALIDATION_FAILED')
    expect(fieldOf(refused)).toEqual(['base_url'])
    const allowed = await put(strict, admin.token, '/api/admin/settings/ai', {
      allow_private_network: true,
      base_url: ollama,
      api_key: AI_API_KEY,
    })
    expect(allowed.statusCode).toBe(200)
    expect(allowed.json()).toMatchObject({ base_url: ollama, allow_private_network: true })
    // The provider on this machine is reached, though the instance's rules refuse loopback…
    const local = await put(strict, admin.token, '/api/admin/settings/ai', {
      base_url: ai.baseUrl,
      api_key: AI_API_KEY,
    })
    expect(local.statusCode).toBe(200)
    const models = await strict.app.inject({
      method: 'GET',
      url: '/api/admin/settings/ai/models',
      headers: bearer(admin.token),
    })
    expect(models.statusCode).toBe(200)
    // …and nothing else is: the same server stays refused to a page fetch.
    const page = await strict.app.inject({
      method: 'POST',
      url: '/api/links/fetch-title',
      headers: bearer(admin.token),
      payload: { url: `${ai.baseUrl}/models` },
    })
    expectReason(page, 400, 'VALIDATION_FAILED')
    // Switching it off while the stored URL needs it is refused; with another URL it goes.
    const off = await put(strict, admin.token, '/api/admin/settings/ai', {
      allow_private_network: false,
    })
    expectReason(off, 400, 'VALIDATION_FAILED')
    expect(fieldOf(off)).toEqual(['base_url'])
    const reset = await put(strict, admin.token, '/api/admin/settings/ai', {
      allow_private_network: false,
      base_url: 'https://api.openai.com/v1',
      api_key: null,
    })
    expect(reset.statusCode).toBe(200)
  })
})
