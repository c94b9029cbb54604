/**
 * Security notifications. Each event delivers exactly one mail to the in-process
 * SMTP server, to the right address, in the person's language, saying when and from where — and
 * never a secret (scanned). The request does not wait for SMTP (a stalled server does not slow it);
 * without SMTP the notice is recorded only; failures are retried with backoff and then given up.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordAudit } from '../audit/service.js'
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
  withAdminProof,
} from '../../../test/helpers/factories.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import {
  findLeak,
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../../../test/helpers/secret-scan.js'
import {
  startSmtpStandIn,
  textOf,
  type ReceivedMail,
  type SmtpStandIn,
} from '../../../test/helpers/smtp-server.js'
import { backoffSeconds, MAX_ATTEMPTS, sendDueNotifications } from './sender.js'

const t = useTestApp()
scanResponsesForSecrets(t)

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'

let server: SmtpStandIn
let admin: TestUser & SignedIn
/** Every secret a test handed out: no mail may carry any of them. */
const secrets: string[] = [SMTP_PASSWORD, DEFAULT_PASSWORD]
/** Mails that are not notices (an email verification link, which carries its token by design). */
const notNotices = new Set<ReceivedMail>()

async function configureSmtp(fields: Record<string, unknown>): Promise<void> {
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: withAdminProof(fields),
  })
  expect(response.statusCode, response.body).toBe(200)
}

const standInSmtp = () => ({
  enabled: true,
  host: server.host,
  port: server.port,
  username: SMTP_USERNAME,
  password: SMTP_PASSWORD,
  plaintext_auth_on_loopback: true,
  from_address: 'security@example.com',
})

beforeAll(async () => {
  server = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
  admin = await createSignedInUser(t, { isAdmin: true })
  await configureSmtp(standInSmtp())
})

afterAll(async () => {
  const notices = (server?.received ?? []).filter((mail) => !notNotices.has(mail))
  expect(notices.length).toBeGreaterThan(10)
  for (const mail of notices)
    expect(findLeak(mail.raw, secrets), `a secret in a mail to ${mail.to.join()}`).toBeNull()
  await server?.close()
})

const mailsTo = (address: string): ReceivedMail[] =>
  server.received.filter((mail) => mail.to.includes(address))

async function waitFor<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (done(value)) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function outboxOf(userId: string) {
  return t.deps.db
    .selectFrom('mail_outbox')
    .select(['kind', 'status', 'recipient', 'attempts'])
    .where('user_id', '=', userId)
    .execute()
}

/**
 * Waits until the outbox has nothing pending for the user, then expects exactly one sent notice of
 * `kind` and exactly `count` mails at `address`; returns the newest mail's text. Each probe runs a
 * pass of the sender rather than waiting up to a second for the background one (a row is claimed
 * by one pass only); the background sender is what delivers in the tests of 'delivery'.
 */
async function expectOneNotice(
  userId: string,
  kind: string,
  address: string,
  count = 1,
): Promise<string> {
  const rows = await waitFor(
    async () => {
      await sendDueNotifications(t.deps)
      return outboxOf(userId)
    },
    (all) => all.some((row) => row.kind === kind) && all.every((row) => row.status !== 'pending'),
    `the ${kind} notice`,
  )
  expect(rows.filter((row) => row.kind === kind)).toEqual([
    { kind, status: 'sent', recipient: address, attempts: 1 },
  ])
  const mails = await waitFor(
    () => mailsTo(address),
    (all) => all.length >= count,
    `${count} mails to ${address}`,
  )
  expect(mails).toHaveLength(count)
  return textOf(mails.at(-1)!)
}

function signInFrom(email: string, userAgent: string, ip = '203.0.113.9') {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: DEFAULT_PASSWORD },
    headers: { 'user-agent': userAgent },
    remoteAddress: ip,
  })
}

describe('a sign-in from a browser and system not seen before', () => {
  it('is mailed once; the first device is the baseline and a known one is not announced again', async () => {
    const person = await createUser(t)
    expect((await signInFrom(person.email, FIREFOX_LINUX)).statusCode).toBe(200)
    expect((await signInFrom(person.email, FIREFOX_LINUX)).statusCode).toBe(200)
    expect(await outboxOf(person.user.id)).toEqual([])

    expect((await signInFrom(person.email, SAFARI_IPHONE, '198.51.100.23')).statusCode).toBe(200)
    const text = await expectOneNotice(person.user.id, 'new_sign_in', person.email)
    expect(text).toContain('198.51.100.23')
    expect(text).toContain('Safari on iOS')
    expect(text).toContain('/account/security')
    expect(textOf(mailsTo(person.email)[0]!)).not.toContain('iPhone OS 17_5')

    expect((await signInFrom(person.email, SAFARI_IPHONE)).statusCode).toBe(200)
    await sendDueNotifications(t.deps)
    expect(
      (await outboxOf(person.user.id)).filter((row) => row.kind === 'new_sign_in'),
    ).toHaveLength(1)
  })

  it('of two concurrent first sign-ins from a new device, exactly one is announced', async () => {
    const person = await createUser(t)
    await signInFrom(person.email, FIREFOX_LINUX)
    const both = await Promise.all([
      signInFrom(person.email, SAFARI_IPHONE),
      signInFrom(person.email, SAFARI_IPHONE),
    ])
    expect(both.map((r) => r.statusCode)).toEqual([200, 200])
    await expectOneNotice(person.user.id, 'new_sign_in', person.email)
  })

  it('is not mailed to a person who switched it off (API), and is again once switched back on', async () => {
    const person = await createUser(t)
    const first = await signInFrom(person.email, FIREFOX_LINUX)
    const token: string = first.json().token
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/users/me/notifications',
          headers: bearer(token),
        })
      ).json(),
    ).toEqual({ new_sign_in: true })
    const off = await t.app.inject({
      method: 'PUT',
      url: '/api/users/me/notifications',
      headers: bearer(token),
      payload: { new_sign_in: false },
    })
    expect(off.json()).toEqual({ new_sign_in: false })

    await signInFrom(person.email, SAFARI_IPHONE)
    await sendDueNotifications(t.deps)
    expect(await outboxOf(person.user.id)).toEqual([])

    await t.app.inject({
      method: 'PUT',
      url: '/api/users/me/notifications',
      headers: bearer(token),
      payload: { new_sign_in: true },
    })
    await signInFrom(person.email, 'curl/8.5.0')
    await expectOneNotice(person.user.id, 'new_sign_in', person.email)
  })

  it('the switch is only for the new sign-in mail: the body refuses anything else', async () => {
    const person = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/users/me/notifications',
      headers: bearer(person.token),
      payload: { password_changed: false },
    })
    expect(response.statusCode).toBe(400)
  })
})

describe('changes to the account', () => {
  it('password changed', async () => {
    const person = await createSignedInUser(t)
    const newPassword = 'a different sound passphrase 9'
    secrets.push(newPassword)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/password',
      headers: bearer(person.token),
      payload: { current_password: DEFAULT_PASSWORD, new_password: newPassword },
    })
    expect(response.statusCode).toBe(204)
    const text = await expectOneNotice(person.user.id, 'password_changed', person.email)
    expect(text).toContain('password of your account was changed')
    expect(text).toContain('If this was you, there is nothing to do')
  })

  it('email change requested (to the old address, the new one masked) and completed (to the old address)', async () => {
    const person = await createSignedInUser(t)
    const newEmail = `renamed-${person.user.id.slice(0, 8)}@example.org`
    const request = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/email',
      headers: bearer(person.token),
      payload: { email: newEmail, password: DEFAULT_PASSWORD },
    })
    expect(request.statusCode, request.body).toBe(202)
    const text = await expectOneNotice(person.user.id, 'email_change_requested', person.email)
    expect(text).toContain('r•••@e•••.org')
    expect(text).not.toContain(newEmail)

    // The verification link went to the new address; it is a secret the notice must not carry.
    const verification = mailsTo(newEmail).at(-1)!
    notNotices.add(verification)
    const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(textOf(verification))![1]!
    secrets.push(token)
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/users/email/verify',
      payload: { token },
    })
    expect(verified.statusCode).toBe(200)
    const completed = await expectOneNotice(person.user.id, 'email_changed', person.email, 2)
    expect(completed).toContain('email address was changed')
    expect(mailsTo(newEmail)).toHaveLength(1)
  })

  it('two-factor enabled, backup codes regenerated, two-factor disabled', async () => {
    const person = await createSignedInUser(t)
    const mfa: MfaEnrolled = await enableMfa(t, person)
    secrets.push(mfa.secret, ...mfa.backupCodes)
    await expectOneNotice(person.user.id, 'two_factor_enabled', person.email)

    const regenerate = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/backup/regenerate',
      headers: bearer(person.token),
      payload: { code: totpCode(mfa.secret, t.clock.now()), password: DEFAULT_PASSWORD },
    })
    expect(regenerate.statusCode).toBe(200)
    secrets.push(...(regenerate.json().backup_codes as string[]))
    await expectOneNotice(person.user.id, 'backup_codes_regenerated', person.email, 2)

    t.clock.advance(30)
    const disable = await t.app.inject({
      method: 'POST',
      url: '/api/auth/mfa/disable',
      headers: bearer(person.token),
      payload: { code: totpCode(mfa.secret, t.clock.now()), password: DEFAULT_PASSWORD },
    })
    expect(disable.statusCode).toBe(204)
    await expectOneNotice(person.user.id, 'two_factor_disabled', person.email, 3)
  })

  it("an administrator's reset of the person's second factor", async () => {
    const person = await createSignedInUser(t)
    const mfa = await enableMfa(t, person)
    secrets.push(mfa.secret, ...mfa.backupCodes)
    const adminMfaFree = await createSignedInUser(t, { isAdmin: true })
    const reset = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${person.user.id}/mfa/reset`,
      headers: bearer(adminMfaFree.token),
      payload: { current_password: DEFAULT_PASSWORD },
    })
    expect(reset.statusCode, reset.body).toBe(204)
    const text = await expectOneNotice(person.user.id, 'two_factor_reset', person.email, 2)
    expect(text).toContain('An administrator reset two-factor authentication')
  })

  it('API token created (its name, never its secret)', async () => {
    const person = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, person.token, 'deploy-ci')
    secrets.push(token)
    const text = await expectOneNotice(person.user.id, 'api_token_created', person.email)
    expect(text).toContain('"deploy-ci"')
  })

  it('passkey added and removed (the actions the passkey module audits)', async () => {
    const person = await createSignedInUser(t)
    const ctx = { ip: '192.0.2.4', userAgent: FIREFOX_LINUX }
    await t.deps.db.transaction().execute((tx) =>
      recordAudit(tx, t.deps.clock, ctx, {
        action: 'passkey.register',
        actor: person.user,
        target: { type: 'passkey', id: 'pk-1' },
        metadata: { name: 'YubiKey 5' },
      }),
    )
    const added = await expectOneNotice(person.user.id, 'passkey_added', person.email)
    expect(added).toContain('"YubiKey 5" was added')
    expect(added).toContain('192.0.2.4 (Firefox on Linux)')
    await recordAudit(t.deps.db, t.deps.clock, ctx, {
      action: 'passkey.delete',
      actor: person.user,
      target: { type: 'passkey', id: 'pk-1' },
      metadata: { name: 'YubiKey 5' },
    })
    await expectOneNotice(person.user.id, 'passkey_removed', person.email, 2)
  })

  it("in the person's language", async () => {
    const person = await createSignedInUser(t)
    await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(person.token),
      payload: { language: 'de' },
    })
    await createApiTokenFor(t, person.token, 'Skript')
    const text = await expectOneNotice(person.user.id, 'api_token_created', person.email)
    expect(text).toContain('Für Ihr Konto wurde ein API-Token mit dem Namen „Skript“ erstellt.')
    expect(text).toContain('Wenn Sie das waren, ist nichts zu tun.')
  })

  it('a rolled-back change queues nothing (the notice is written in its transaction)', async () => {
    const person = await createSignedInUser(t)
    await t.deps.db
      .transaction()
      .execute(async (tx) => {
        await recordAudit(
          tx,
          t.deps.clock,
          { ip: null, userAgent: null },
          {
            action: 'user.password_change',
            actor: person.user,
            target: { type: 'user', id: person.user.id },
          },
        )
        throw new Error('roll back')
      })
      .catch(() => undefined)
    expect(await outboxOf(person.user.id)).toEqual([])
  })
})

describe('delivery', () => {
  it('without SMTP the notice is recorded only (skipped), never sent later', async () => {
    await configureSmtp({ enabled: false })
    try {
      const person = await createSignedInUser(t)
      await createApiTokenFor(t, person.token)
      const rows = await waitFor(
        () => outboxOf(person.user.id),
        (all) => all[0]?.status === 'skipped',
        'the skipped notice',
      )
      expect(rows).toHaveLength(1)
      expect(mailsTo(person.email)).toEqual([])
    } finally {
      await configureSmtp(standInSmtp())
    }
  })

  it('a failing server is retried with backoff, then given up and logged', async () => {
    server.rejectRecipients = { code: 550, text: 'mailbox unavailable' }
    const person = await createSignedInUser(t)
    try {
      await createApiTokenFor(t, person.token)
      const [{ id }] = (await t.deps.db
        .selectFrom('mail_outbox')
        .select('id')
        .where('user_id', '=', person.user.id)
        .execute()) as [{ id: string }]
      const retried = () =>
        t.logs.filter((line) => line.includes(id) && line.includes('will be retried')).length
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
        await waitFor(retried, (n) => n === attempt, `attempt ${attempt}`)
        // The sender tries again only once the backoff has passed.
        t.clock.advance(backoffSeconds(attempt) + 1)
      }
      const [row] = await waitFor(
        () => outboxOf(person.user.id),
        (all) => all[0]?.status === 'failed',
        'the given-up notice',
      )
      expect(row!.attempts).toBe(MAX_ATTEMPTS)
      expect(t.logs.some((line) => line.includes('security notification given up'))).toBe(true)
    } finally {
      server.rejectRecipients = null
    }
  })

  it('a stalled SMTP server does not slow the request', async () => {
    const sockets: net.Socket[] = []
    const stalled = net.createServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve))
    const port = (stalled.address() as net.AddressInfo).port
    try {
      await configureSmtp({ ...standInSmtp(), port, password: SMTP_PASSWORD })
      const person = await createSignedInUser(t)
      // The sender is busy with the stalled server from here on.
      await createApiTokenFor(t, person.token, 'first')
      await waitFor(
        () => sockets.length,
        (n) => n > 0,
        'a connection to the stalled server',
      )
      const started = performance.now()
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: bearer(person.token),
        payload: { name: 'second', permissions: ['links:read'] },
      })
      const elapsed = performance.now() - started
      expect(response.statusCode).toBe(201)
      secrets.push(response.json().token)
      // The mailer waits up to 10 s per stage for a stalled server; the request does not wait at
      // all.
      expect(elapsed).toBeLessThan(2000)
      expect((await outboxOf(person.user.id)).map((row) => row.status)).toEqual([
        'pending',
        'pending',
      ])
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => stalled.close(() => resolve()))
      await configureSmtp({ ...standInSmtp(), password: SMTP_PASSWORD })
    }
  })
})

describe('what the notices leave out', () => {
  it('a failed sign-in is not mailed, and no mail goes to an address that has no account', async () => {
    const person = await createUser(t)
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: person.email, password: 'not the password at all' },
    })
    expect(wrong.statusCode).toBe(401)
    await sendDueNotifications(t.deps)
    expect(await outboxOf(person.user.id)).toEqual([])
    await login(t, person.email, DEFAULT_PASSWORD)
  })
})
