/**
 * Changing the account email with a verification link (docs/API.md#email-change), mail really
 * delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  closeReauthenticationWindows,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  login,
  openSessionFor,
  uniqueEmail,
} from '../../../test/helpers/factories.js'
import {
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'

const t = useTestApp()
scanResponsesForSecrets(t)

let server: SmtpStandIn
beforeAll(async () => {
  server = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
})
afterAll(async () => {
  await server?.close()
})

const requestChange = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/users/me/email', headers: bearer(token), payload })
const verify = (token: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/users/email/verify', payload: { token } })
const me = async (token: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })).json()

/** The token of the newest verification mail sent to `to`, read from its link. */
function tokenMailedTo(to: string): string {
  const mail = server.received.filter((m) => m.to.includes(to)).at(-1)
  expect(mail, `a mail to ${to}`).toBeTruthy()
  const link = /http:\/\/switchboard\.test\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(
    textOf(mail!),
  )
  expect(link, textOf(mail!)).not.toBeNull()
  return link![1]!
}

async function configureSmtp(enabled = true): Promise<void> {
  const { token } = await createSignedInUser(t, { isAdmin: true })
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(token),
    payload: {
      current_password: DEFAULT_PASSWORD,
      enabled,
      host: server.host,
      port: server.port,
      username: SMTP_USERNAME,
      password: SMTP_PASSWORD,
      // The stand-in offers no STARTTLS (credentials in clear only to loopback, explicitly).
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
    },
  })
  expect(response.statusCode).toBe(200)
}

describe('without SMTP', () => {
  it('POST /api/users/me/email answers 503 NOT_CONFIGURED and changes nothing', async () => {
    const alice = await createSignedInUser(t)
    const response = await requestChange(alice.token, {
      email: uniqueEmail('new'),
      password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(503)
    expect(response.json().reason).toBe('NOT_CONFIGURED')
    expect((await me(alice.token)).email_pending).toBeNull()
    expect(await t.deps.db.selectFrom('email_verifications').select('id').execute()).toEqual([])
  })

  it('configured but switched off is still 503', async () => {
    await configureSmtp(false)
    const alice = await createSignedInUser(t)
    expect(
      (await requestChange(alice.token, { email: uniqueEmail('new'), password: DEFAULT_PASSWORD }))
        .statusCode,
    ).toBe(503)
    await configureSmtp(true)
  })
})

describe('POST /api/users/me/email then POST /api/users/email/verify', () => {
  it('sets email_pending (202 User), mails a link to the new address, and the link swaps the address', async () => {
    const alice = await createSignedInUser(t)
    const newEmail = uniqueEmail('alice.new')
    const response = await requestChange(alice.token, {
      email: `  ${newEmail.toUpperCase()} `,
      password: DEFAULT_PASSWORD,
    })
    expect(response.statusCode).toBe(202)
    expect(response.json()).toMatchObject({
      id: alice.user.id,
      email: alice.email,
      email_pending: newEmail,
    })
    expect(Object.keys(response.json())).toHaveLength(12)
    expect((await me(alice.token)).email_pending).toBe(newEmail)

    const mail = server.received.at(-1)!
    expect(mail.to).toEqual([newEmail])
    expect(mail.from).toBe('no-reply@example.com')
    expect(mail.raw).toMatch(/^Subject: Confirm your new email address/m)
    const token = tokenMailedTo(newEmail)
    expect(Buffer.from(token, 'base64url')).toHaveLength(32)

    // At rest only the SHA-256 of the token, with a 24-hour expiry.
    const row = await t.deps.db
      .selectFrom('email_verifications')
      .select(['token_hash', 'email', 'created_at', 'expires_at', 'used_at'])
      .where('user_id', '=', alice.user.id)
      .executeTakeFirstOrThrow()
    expect(row.token_hash).toBe(sha256Hex(token))
    expect(JSON.stringify(row)).not.toContain(token)
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(24 * 3600 * 1000)
    expect(row.used_at).toBeNull()

    const verified = await verify(token)
    expect(verified.statusCode).toBe(200)
    // Public, so only what the page shows: the address now in use, nothing else of the account.
    expect(verified.json()).toEqual({ email: newEmail })
    expect(await me(alice.token)).toMatchObject({ email: newEmail, email_pending: null })
    await expect(login(t, newEmail, DEFAULT_PASSWORD)).resolves.toBeTruthy()
    await expect(login(t, alice.email, DEFAULT_PASSWORD)).rejects.toThrow(/401/)

    const actions = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', alice.user.id)
      .where('action', 'like', 'user.email%')
      .orderBy('at')
      .execute()
    expect(actions.map((a) => a.action)).toEqual([
      'user.email_change_requested',
      'user.email_verified',
    ])
    expect(JSON.parse(actions[1]!.metadata)).toEqual({
      previous_email: alice.email,
      new_email: newEmail,
    })
    expect(JSON.stringify(actions)).not.toContain(token)
  })

  it('a link works once: used, unknown, malformed or empty tokens are 400 on token', async () => {
    const bob = await createSignedInUser(t)
    const newEmail = uniqueEmail('bob.new')
    await requestChange(bob.token, { email: newEmail, password: DEFAULT_PASSWORD })
    const token = tokenMailedTo(newEmail)
    expect((await verify(token)).statusCode).toBe(200)
    for (const bad of [token, 'A'.repeat(43), 'not a token at all', `${token}x`]) {
      const response = await verify(bad)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({
        reason: 'VALIDATION_FAILED',
        details: [
          { field: 'token', message: 'is invalid, expired or already used', code: 'invalid' },
        ],
      })
    }
    expect((await verify('')).json().details[0].field).toBe('token')
    expect((await verify(12)).json().details[0].field).toBe('token')
  })

  it('of two concurrent uses of one link exactly one succeeds', async () => {
    const carol = await createSignedInUser(t)
    const newEmail = uniqueEmail('carol.new')
    await requestChange(carol.token, { email: newEmail, password: DEFAULT_PASSWORD })
    const token = tokenMailedTo(newEmail)
    const results = await Promise.all([verify(token), verify(token), verify(token)])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400])
  })

  it('a link does not change the address of an account that has been disabled since', async () => {
    const lee = await createSignedInUser(t)
    const newEmail = uniqueEmail('lee.new')
    await requestChange(lee.token, { email: newEmail, password: DEFAULT_PASSWORD })
    const token = tokenMailedTo(newEmail)
    await t.deps.db
      .updateTable('users')
      .set({ disabled: true })
      .where('id', '=', lee.user.id)
      .execute()
    const response = await verify(token)
    expect(response.statusCode).toBe(400)
    expect(response.json().details[0].field).toBe('token')
    const row = await t.deps.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', lee.user.id)
      .executeTakeFirstOrThrow()
    expect(row.email).toBe(lee.email)
    // Spent: re-enabling the account does not revive the link.
    await t.deps.db
      .updateTable('users')
      .set({ disabled: false })
      .where('id', '=', lee.user.id)
      .execute()
    expect((await verify(token)).statusCode).toBe(400)
  })

  it('a link expires after 24 hours', async () => {
    const dave = await createSignedInUser(t)
    const newEmail = uniqueEmail('dave.new')
    await requestChange(dave.token, { email: newEmail, password: DEFAULT_PASSWORD })
    const token = tokenMailedTo(newEmail)
    t.clock.advance(24 * 3600 + 1)
    expect((await verify(token)).statusCode).toBe(400)
    expect((await me(await openSessionFor(t, dave.user.id))).email).toBe(dave.email)
  })

  it('a new request replaces the pending one: only the newest link works', async () => {
    const erin = await createSignedInUser(t)
    const first = uniqueEmail('erin.first')
    const second = uniqueEmail('erin.second')
    await requestChange(erin.token, { email: first, password: DEFAULT_PASSWORD })
    const firstToken = tokenMailedTo(first)
    const response = await requestChange(erin.token, { email: second, password: DEFAULT_PASSWORD })
    expect(response.json().email_pending).toBe(second)
    expect((await verify(firstToken)).statusCode).toBe(400)
    expect((await verify(tokenMailedTo(second))).json()).toEqual({ email: second })
  })

  it('409 ALREADY_EXISTS when the address was taken between the request and the link; the link stays unused', async () => {
    const frank = await createSignedInUser(t)
    const wanted = uniqueEmail('wanted')
    await requestChange(frank.token, { email: wanted, password: DEFAULT_PASSWORD })
    const token = tokenMailedTo(wanted)
    const squatter = await createUser(t, { email: wanted })
    const response = await verify(token)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'email' })
    expect((await me(frank.token)).email).toBe(frank.email)
    const row = await t.deps.db
      .selectFrom('email_verifications')
      .select('used_at')
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow()
    expect(row.used_at).toBeNull()
    await t.deps.db.deleteFrom('users').where('id', '=', squatter.user.id).execute()
    expect((await verify(token)).json().email).toBe(wanted)
  })
})

describe('refusals of POST /api/users/me/email', () => {
  it('needs the password when the account has one: missing 400 PASSWORD_REQUIRED, wrong 400 INVALID_PASSWORD', async () => {
    const gina = await createSignedInUser(t)
    // Outside the re-authentication window its sign-in opened.
    await closeReauthenticationWindows(t, gina.user.id)
    const missing = await requestChange(gina.token, { email: uniqueEmail() })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().reason).toBe('PASSWORD_REQUIRED')
    const wrong = await requestChange(gina.token, {
      email: uniqueEmail(),
      password: 'not the password',
    })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().reason).toBe('INVALID_PASSWORD')
    expect((await me(gina.token)).email_pending).toBeNull()
  })

  it('an account without a password needs none', async () => {
    const { user } = await createUser(t, { password: null })
    const session = await openSessionFor(t, user.id)
    const newEmail = uniqueEmail('nopass')
    const response = await requestChange(session, { email: newEmail })
    expect(response.statusCode).toBe(202)
    expect(response.json().email_pending).toBe(newEmail)
  })

  it('409 EMAIL_MANAGED_BY_PROVIDER for an account linked to an identity provider', async () => {
    const { user } = await createUser(t, { password: null })
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: 'corp', oidc_sub: `sub-${user.id}` })
      .where('id', '=', user.id)
      .execute()
    const response = await requestChange(await openSessionFor(t, user.id), { email: uniqueEmail() })
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      reason: 'EMAIL_MANAGED_BY_PROVIDER',
      error: 'Conflict',
      code: 409,
    })
  })

  it('409 ALREADY_EXISTS for an address another account uses (checked after the password)', async () => {
    const hank = await createSignedInUser(t)
    const other = await createUser(t)
    const wrongPassword = await requestChange(hank.token, {
      email: other.email,
      password: 'not the password',
    })
    expect(wrongPassword.json().reason).toBe('INVALID_PASSWORD')
    const taken = await requestChange(hank.token, {
      email: other.email.toUpperCase(),
      password: DEFAULT_PASSWORD,
    })
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'email' })
  })

  it('400 for the current address, an invalid address or unknown fields', async () => {
    const ivy = await createSignedInUser(t)
    const same = await requestChange(ivy.token, {
      email: ivy.email.toUpperCase(),
      password: DEFAULT_PASSWORD,
    })
    expect(same.statusCode).toBe(400)
    expect(same.json().details).toEqual([
      { field: 'email', message: 'is already your email address', code: 'invalid' },
    ])
    expect(
      (await requestChange(ivy.token, { email: 'nope', password: DEFAULT_PASSWORD })).json()
        .details[0].field,
    ).toBe('email')
    expect(
      (
        await requestChange(ivy.token, {
          email: uniqueEmail(),
          password: DEFAULT_PASSWORD,
          name: 'x',
        })
      ).json().details[0].field,
    ).toBe('name')
    expect((await requestChange(ivy.token, {})).json().details[0]).toEqual({
      field: 'email',
      message: 'is required',
      code: 'required',
    })
  })

  it('502 UPSTREAM_FAILED when the mail cannot be sent — and nothing stays pending', async () => {
    const jack = await createSignedInUser(t)
    server.rejectRecipients = { code: 550, text: 'mailbox unavailable' }
    try {
      const response = await requestChange(jack.token, {
        email: uniqueEmail('bounce'),
        password: DEFAULT_PASSWORD,
      })
      expect(response.statusCode).toBe(502)
      expect(response.json()).toMatchObject({
        reason: 'UPSTREAM_FAILED',
        message: 'The verification email could not be sent. Try again later.',
      })
    } finally {
      server.rejectRecipients = null
    }
    expect((await me(jack.token)).email_pending).toBeNull()
    expect(
      await t.deps.db
        .selectFrom('email_verifications')
        .select('id')
        .where('user_id', '=', jack.user.id)
        .execute(),
    ).toEqual([])
    expect(t.logs.some((line) => line.includes('reply code 550'))).toBe(true)
  })

  it('needs credentials; an interactive session is declared as required (SESSION_REQUIRED for API tokens)', async () => {
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/users/me/email',
          payload: { email: uniqueEmail() },
        })
      ).statusCode,
    ).toBe(401)
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    const operation = doc.paths['/api/users/me/email'].post
    // A shared answer is a reference to its response component.
    const forbidden = operation.responses['403']
    expect(
      (forbidden.$ref ? doc.components.responses[forbidden.$ref.split('/').pop()] : forbidden)
        .description,
    ).toContain('SESSION_REQUIRED')
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['202', '400', '401', '403', '409', '429', '502', '503']),
    )
    const verifyOperation = doc.paths['/api/users/email/verify'].post
    expect(verifyOperation.security).toEqual([])
    expect(Object.keys(verifyOperation.responses)).toEqual(
      expect.arrayContaining(['200', '400', '409']),
    )
  })

  it('refuses a personal API token with 403 SESSION_REQUIRED (docs/API.md#what-an-api-token-may-not-do)', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/email',
      headers: bearer(token),
      payload: { email: uniqueEmail(), password: DEFAULT_PASSWORD },
    })
    expect(response.statusCode).toBe(403)
    expect(response.json().reason).toBe('SESSION_REQUIRED')
  })

  it('is limited to 10 requests per 15 minutes per user', async () => {
    const kim = await createSignedInUser(t)
    for (let i = 0; i < 10; i++) {
      const response = await requestChange(kim.token, {
        email: uniqueEmail('kim'),
        password: DEFAULT_PASSWORD,
      })
      expect(response.statusCode).toBe(202)
      expect(response.headers['ratelimit-limit']).toBe('10')
    }
    const limited = await requestChange(kim.token, {
      email: uniqueEmail('kim'),
      password: DEFAULT_PASSWORD,
    })
    expect(limited.statusCode).toBe(429)
    expect(limited.json().reason).toBe('RATE_LIMITED')
  })
})
