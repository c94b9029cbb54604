/**
 * The SMTP password and the AI key never leave the server (docs/API.md#settings): drives every
 * settings, configuration and email-change endpoint — successes and failures, including upstream
 * servers that quote the secrets back — then scans every response body and header, every log line
 * (at debug level), the audit trail and the stored rows for the secrets in any form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  uniqueEmail,
  withAdminProof,
} from '../helpers/factories.js'
import { startOpenAiStandIn, type OpenAiStandIn } from '../helpers/openai-stand-in.js'
import {
  AI_API_KEY,
  findLeak,
  OTHER_AI_API_KEY,
  OTHER_SMTP_PASSWORD,
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../helpers/secret-scan.js'
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-server.js'

const SECRETS = [SMTP_PASSWORD, OTHER_SMTP_PASSWORD, AI_API_KEY, OTHER_AI_API_KEY]
const t = useTestApp({ env: { LOG_LEVEL: 'debug' } })
const responses = scanResponsesForSecrets(t, SECRETS)

let smtp: SmtpStandIn
let provider: OpenAiStandIn
beforeAll(async () => {
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
    echoPasswordOnFailure: true,
  })
  provider = await startOpenAiStandIn(AI_API_KEY)
})
afterAll(async () => {
  await smtp?.close()
  await provider?.close()
})

describe('settings secrets never leave the server', () => {
  it('the scan itself finds a secret whole, base64-encoded or partly masked', () => {
    expect(findLeak(`{"password":"${SMTP_PASSWORD}"}`, SECRETS)).not.toBeNull()
    expect(findLeak(Buffer.from(SMTP_PASSWORD).toString('base64'), SECRETS)).not.toBeNull()
    expect(
      findLeak(
        `Incorrect API key provided: ${AI_API_KEY.slice(0, 3)}****${AI_API_KEY.slice(-8)}`,
        SECRETS,
      ),
    ).not.toBeNull()
    expect(findLeak('{"password_set":true}', SECRETS)).toBeNull()
  })

  it('drives every endpoint that touches them', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const member = await createSignedInUser(t)
    const as = (token: string) => bearer(token)
    const send = (
      method: 'GET' | 'PUT' | 'POST' | 'DELETE',
      url: string,
      payload?: object,
      token = admin.token,
    ) =>
      t.app.inject({
        method,
        url,
        headers: as(token),
        ...(payload && { payload: withAdminProof(payload, url) }),
      })

    await send('PUT', '/api/admin/settings/smtp', {
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      username: SMTP_USERNAME,
      password: SMTP_PASSWORD,
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
    })
    await send('PUT', '/api/admin/settings/ai', {
      base_url: provider.baseUrl,
      api_key: AI_API_KEY,
      model: 'gpt-4o',
      enabled: true,
    })
    await send('PUT', '/api/admin/settings/site.name', { value: 'Acme' })

    expect((await send('POST', '/api/admin/settings/smtp/test', {})).statusCode).toBe(200)
    expect((await send('GET', '/api/admin/settings/ai/models')).statusCode).toBe(200)

    // Failures, with upstream servers that quote the wrong secrets back.
    await send('PUT', '/api/admin/settings/smtp', { password: OTHER_SMTP_PASSWORD })
    expect((await send('POST', '/api/admin/settings/smtp/test', {})).statusCode).toBe(502)
    expect(
      (
        await send(
          'POST',
          '/api/users/me/email',
          { email: uniqueEmail(), password: DEFAULT_PASSWORD },
          member.token,
        )
      ).statusCode,
    ).toBe(502)
    await send('PUT', '/api/admin/settings/ai', { api_key: OTHER_AI_API_KEY })
    expect((await send('GET', '/api/admin/settings/ai/models')).statusCode).toBe(502)
    // Invalid: 400
    await send('PUT', '/api/admin/settings/smtp', { password: SMTP_PASSWORD, port: 0 })
    await send('PUT', '/api/admin/settings/ai', {
      api_key: AI_API_KEY,
      base_url: 'https://user:pw@example.com',
    }) // 400
    await send('PUT', '/api/admin/settings/smtp', { password: SMTP_PASSWORD })
    await send('PUT', '/api/admin/settings/ai', { api_key: AI_API_KEY })

    // Every read of the sections, through every route.
    for (const url of [
      '/api/admin/settings',
      '/api/admin/settings/smtp',
      '/api/admin/settings/ai',
      '/api/admin/settings/site.name',
    ]) {
      expect((await send('GET', url)).statusCode).toBe(200)
    }
    await send('GET', '/api/admin/settings/smtp.password')
    // Refused: reserved key
    await send('PUT', '/api/admin/settings/smtp.password', { value: SMTP_PASSWORD })
    await send('DELETE', '/api/admin/settings/smtp')
    await send('GET', '/api/admin/settings/smtp', undefined, member.token)
    await send('GET', '/api/config/ai-suggestions', undefined, member.token)
    expect(
      (
        await send(
          'POST',
          '/api/users/me/email',
          { email: uniqueEmail(), password: DEFAULT_PASSWORD },
          member.token,
        )
      ).statusCode,
    ).toBe(202)
    await t.app.inject({
      method: 'POST',
      url: '/api/users/email/verify',
      payload: { token: 'unknown' },
    })
    await t.app.inject({ method: 'GET', url: '/api/openapi.json' })

    expect(responses.length).toBeGreaterThan(25)
    expect(smtp.received.length).toBeGreaterThanOrEqual(2)
  })

  it('the secrets did reach the upstream servers, so the scans below are not vacuous', () => {
    expect(provider.calls.map((c) => c.authorization)).toContain(`Bearer ${AI_API_KEY}`)
    expect(smtp.received.some((mail) => mail.username === SMTP_USERNAME)).toBe(true)
  })

  it('no response body or header holds a secret in any form (also checked for every file that uses the scan)', () => {
    for (const response of responses)
      expect(findLeak(response.body + JSON.stringify(response.headers), SECRETS)).toBeNull()
    const bodies = responses.map((r) => r.body).join('\n')
    // The SMTP server did quote the password; the answer names the stage and code only.
    expect(bodies).toContain('The SMTP server refused the authentication (reply code 535).')
  })

  it('no log line, even at debug level, holds a secret', () => {
    expect(t.logs.length).toBeGreaterThan(25)
    for (const line of t.logs) expect(findLeak(line, SECRETS), line).toBeNull()
  })

  it('the audit trail holds no secret', async () => {
    const rows = await t.deps.db.selectFrom('audit_events').selectAll().execute()
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['smtp.update', 'smtp.test', 'ai.update', 'settings.update']),
    )
    expect(findLeak(JSON.stringify(rows), SECRETS)).toBeNull()
  })

  it('the database holds the secrets only encrypted', async () => {
    const rows = await t.deps.db.selectFrom('settings').selectAll().execute()
    const text = JSON.stringify(rows)
    expect(findLeak(text, SECRETS)).toBeNull()
    const stored = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]))
    expect(stored.smtp.password_encrypted).toMatch(/^v1\./)
    expect(stored.ai.api_key_encrypted).toMatch(/^v1\./)
    // The ciphertexts themselves never leave either.
    for (const response of responses) {
      expect(response.body).not.toContain(stored.smtp.password_encrypted)
      expect(response.body).not.toContain(stored.ai.api_key_encrypted)
    }
  })
})
