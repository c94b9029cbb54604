/** The SMTP section (docs/API.md#settings) against a real SMTP server running in this process. */
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decrypt } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
  withAdminProof,
} from '../../../test/helpers/factories.js'
import {
  OTHER_SMTP_PASSWORD,
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'
import { createMailer, smtpPolicy, SMTP_UNREACHABLE } from '../mail/mailer.js'

const t = useTestApp()
scanResponsesForSecrets(t)

let server: SmtpStandIn
let admin: TestUser & SignedIn
beforeAll(async () => {
  server = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
    echoPasswordOnFailure: true,
  })
  admin = await createSignedInUser(t, { isAdmin: true })
})
afterAll(async () => {
  await server?.close()
})

const getSmtp = () =>
  t.app.inject({ method: 'GET', url: '/api/admin/settings/smtp', headers: bearer(admin.token) })
const putSmtp = (payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: withAdminProof(payload),
  })
const sendTest = (payload: Record<string, unknown> = {}, token = admin.token) =>
  t.app.inject({
    method: 'POST',
    url: '/api/admin/settings/smtp/test',
    headers: bearer(token),
    payload,
  })
const storedSmtp = async () =>
  JSON.parse(
    (
      await t.deps.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', 'smtp')
        .executeTakeFirstOrThrow()
    ).value,
  )

const configureWorkingServer = () =>
  putSmtp({
    enabled: true,
    host: server.host,
    port: server.port,
    secure: false,
    username: SMTP_USERNAME,
    password: SMTP_PASSWORD,
    // The stand-in offers no STARTTLS (credentials in clear only to loopback, explicitly).
    plaintext_auth_on_loopback: true,
    from_address: 'Switchboard@Example.com',
    from_name: 'Switchboard',
  })

describe('GET /api/admin/settings/smtp', () => {
  it('answers the defaults when never configured: exactly the sanitized fields', async () => {
    const response = await getSmtp()
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      enabled: false,
      host: null,
      port: 587,
      secure: false,
      username: null,
      from_address: null,
      from_name: null,
      password_set: false,
      plaintext_auth_on_loopback: false,
    })
  })

  it('sends a test mail only once SMTP is configured and enabled (503 NOT_CONFIGURED)', async () => {
    const response = await sendTest()
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({ reason: 'NOT_CONFIGURED', code: 503 })
    expect(server.received).toHaveLength(0)
  })
})

describe('PUT /api/admin/settings/smtp', () => {
  it('takes a partial body, returns the sanitized view, and stores the password encrypted', async () => {
    const response = await configureWorkingServer()
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      enabled: true,
      host: '127.0.0.1',
      port: server.port,
      secure: false,
      username: SMTP_USERNAME,
      from_address: 'switchboard@example.com',
      from_name: 'Switchboard',
      password_set: true,
      plaintext_auth_on_loopback: true,
    })
    const stored = await storedSmtp()
    expect(JSON.stringify(stored)).not.toContain(SMTP_PASSWORD)
    expect(stored.password_encrypted).toMatch(/^v1\./)
    // Bound to its place: the ciphertext opens under its own context only.
    expect(decrypt(t.deps.secrets.encryptionKey, stored.password_encrypted, 'settings.smtp')).toBe(
      SMTP_PASSWORD,
    )
    expect(() =>
      decrypt(t.deps.secrets.encryptionKey, stored.password_encrypted, 'settings.ai'),
    ).toThrow()
  })

  it('keeps the password when omitted, and changes only the fields sent', async () => {
    const before = await storedSmtp()
    const response = await putSmtp({ from_name: '  Switchboard Mailer  ' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      from_name: 'Switchboard Mailer',
      password_set: true,
      host: '127.0.0.1',
      enabled: true,
    })
    expect((await storedSmtp()).password_encrypted).toBe(before.password_encrypted)
  })

  it('clears the password with null, and re-encrypts a new one', async () => {
    expect((await putSmtp({ password: null })).json().password_set).toBe(false)
    expect((await storedSmtp()).password_encrypted).toBeNull()
    expect((await putSmtp({ password: OTHER_SMTP_PASSWORD })).json().password_set).toBe(true)
    expect((await putSmtp({ password: SMTP_PASSWORD })).json().password_set).toBe(true)
  })

  it('validates every field and refuses unknown ones (password_set is not writable)', async () => {
    const response = await putSmtp({
      host: 'bad host!',
      port: 70000,
      secure: 'yes',
      from_address: 'not an email',
      from_name: 'line\nbreak',
      password: '',
      password_set: true,
    })
    expect(response.statusCode).toBe(400)
    expect(
      response
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(
      ['from_address', 'from_name', 'host', 'password', 'password_set', 'port', 'secure'].sort(),
    )
    expect((await putSmtp({})).statusCode).toBe(400)
  })

  it('refuses to leave SMTP enabled without a host or a sender, changing nothing', async () => {
    const response = await putSmtp({ host: null, from_address: null })
    expect(response.statusCode).toBe(400)
    expect(response.json().details).toEqual([
      { field: 'host', message: 'is required while SMTP is enabled', code: 'invalid' },
      { field: 'from_address', message: 'is required while SMTP is enabled', code: 'invalid' },
    ])
    expect((await getSmtp()).json()).toMatchObject({
      host: '127.0.0.1',
      from_address: 'switchboard@example.com',
    })
  })

  it('audits each update with the names of the fields, never the password', async () => {
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('action', '=', 'smtp.update')
      .execute()
    expect(events.length).toBeGreaterThanOrEqual(4)
    expect(JSON.parse(events[0]!.metadata).fields).toEqual([
      'enabled',
      'from_address',
      'from_name',
      'host',
      'password',
      'plaintext_auth_on_loopback',
      'port',
      'secure',
      'username',
    ])
    expect(JSON.stringify(events)).not.toContain(SMTP_PASSWORD)
  })
})

describe('POST /api/admin/settings/smtp/test', () => {
  it('delivers a real mail, to the caller by default, authenticated with the stored password', async () => {
    server.received.length = 0
    const response = await sendTest()
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toEqual({ delivered: true, message_id: expect.stringMatching(/^<.+@.+>$/) })
    expect(server.received).toHaveLength(1)
    const mail = server.received[0]!
    expect(mail.to).toEqual([admin.email])
    expect(mail.from).toBe('switchboard@example.com')
    expect(mail.username).toBe(SMTP_USERNAME)
    expect(mail.raw).toContain(`Message-ID: ${body.message_id}`)
    expect(mail.raw).toMatch(/^From: Switchboard Mailer <switchboard@example\.com>/m)
    expect(textOf(mail)).toContain('If you can read it, outgoing mail works.')
  })

  it('sends to `to` when given, and validates it', async () => {
    server.received.length = 0
    expect((await sendTest({ to: ' Ops@Example.com ' })).statusCode).toBe(200)
    expect(server.received[0]!.to).toEqual(['ops@example.com'])
    const bad = await sendTest({ to: 'nope' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().details[0].field).toBe('to')
  })

  it('answers 502 UPSTREAM_FAILED naming the stage and reply code, not the reply text, when it refuses the recipient', async () => {
    server.rejectRecipients = { code: 550, text: 'mailbox unavailable' }
    try {
      const response = await sendTest({ to: 'gone@example.com' })
      expect(response.statusCode).toBe(502)
      expect(response.json()).toMatchObject({
        reason: 'UPSTREAM_FAILED',
        code: 502,
        error: 'Bad Gateway',
      })
      expect(response.json().message).toBe(
        'The SMTP server refused the sender or the recipient (reply code 550).',
      )
      expect(response.body).not.toContain('mailbox unavailable')
    } finally {
      server.rejectRecipients = null
    }
  })

  it('answers 502 naming the authentication stage, never the reply that quotes the credentials', async () => {
    await putSmtp({ password: OTHER_SMTP_PASSWORD })
    const response = await sendTest()
    expect(response.statusCode).toBe(502)
    expect(response.json().message).toBe(
      'The SMTP server refused the authentication (reply code 535).',
    )
    await putSmtp({ password: SMTP_PASSWORD })
  })

  it('answers 502 with one message for a closed port, a silent one and another protocol (no port probing)', async () => {
    const closed = await startSmtpStandIn()
    const closedPort = closed.port
    await closed.close()
    const sockets = new Set<net.Socket>()
    const silent = net.createServer((socket) => void sockets.add(socket))
    const ssh = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'))
    const listen = async (s: net.Server) => {
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
      return (s.address() as AddressInfo).port
    }
    const ports = [closedPort, await listen(silent), await listen(ssh)]
    // The timeout short, so the silent port answers within the test.
    const mailer = t.deps.mailer
    t.deps.mailer = createMailer({ policy: smtpPolicy(t.deps.config.outbound), timeoutMs: 300 })
    try {
      const answers = []
      for (const port of ports) {
        await putSmtp({ port, password: SMTP_PASSWORD })
        const response = await sendTest()
        answers.push({ status: response.statusCode, message: response.json().message as string })
      }
      expect(answers).toEqual(ports.map(() => ({ status: 502, message: SMTP_UNREACHABLE })))
    } finally {
      t.deps.mailer = mailer
      for (const socket of sockets) socket.destroy()
      await Promise.all([silent, ssh].map((s) => new Promise((resolve) => s.close(resolve))))
      await putSmtp({ port: server.port, password: SMTP_PASSWORD })
    }
  })

  it('audits each attempt with its outcome', async () => {
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['metadata', 'actor_id'])
      .where('action', '=', 'smtp.test')
      .orderBy('at')
      .execute()
    const outcomes = events.map((e) => JSON.parse(e.metadata) as { to: string; delivered: boolean })
    expect(outcomes.filter((o) => o.delivered)).toHaveLength(2)
    expect(outcomes.filter((o) => !o.delivered).length).toBeGreaterThanOrEqual(3)
    expect(outcomes).toContainEqual({ to: 'gone@example.com', delivered: false })
    expect(events.every((e) => e.actor_id === admin.user.id)).toBe(true)
  })

  it('answers 503 again once SMTP is switched off', async () => {
    await putSmtp({ enabled: false })
    expect((await sendTest()).statusCode).toBe(503)
    await putSmtp({ enabled: true })
  })

  it('is limited to 10 per 15 minutes per administrator (every attempt counts)', async () => {
    const other = await createSignedInUser(t, { isAdmin: true })
    for (let i = 0; i < 10; i++) {
      const response = await sendTest({}, other.token)
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBe('10')
    }
    const limited = await sendTest({}, other.token)
    expect(limited.statusCode).toBe(429)
    expect(limited.json().reason).toBe('RATE_LIMITED')
    expect(limited.json().retryAfter).toBeGreaterThan(14 * 60)
    t.clock.advance(15 * 60 + 1)
    expect((await sendTest({}, other.token)).statusCode).toBe(200)
  })
})
