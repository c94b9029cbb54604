/**
 * Password recovery through the HTTP API, mail really delivered to the SMTP stand-in:
 * the same answer for every address, limits, hashing at rest, single use under a race, expiry,
 * sessions ended, second factor kept, API tokens revoked only when asked, accounts of an identity
 * provider, and the administrator's mailed and copyable links.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sha256Hex } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  createUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
  loginForMfaToken,
  openSessionFor,
  uniqueEmail,
  verifyMfa,
} from '../../../test/helpers/factories.js'
import { totpCode } from '../../../test/helpers/rfc6238.js'
import {
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  SMTP_USERNAME,
} from '../../../test/helpers/secret-scan.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'

const t = useTestApp()
scanResponsesForSecrets(t)

let smtp: SmtpStandIn
let ipCounter = 0
/** A fresh client address per call, so the per-IP limit only counts where a test means it to. */
const freshIp = () => `198.51.100.${++ipCounter % 250}`
beforeAll(async () => {
  smtp = await startSmtpStandIn({
    credentials: { username: SMTP_USERNAME, password: SMTP_PASSWORD },
  })
})
afterAll(async () => {
  await smtp?.close()
})

const NEW_PASSWORD = 'a fresh passphrase 2027'

const ask = (email: string, remoteAddress = freshIp()) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset',
    payload: { email },
    remoteAddress,
  })
const inspect = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/inspect',
    payload: { token },
    remoteAddress: freshIp(),
  })
const complete = (payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/password-reset/complete',
    payload,
    remoteAddress: freshIp(),
  })
const me = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })
const mailsTo = (to: string) => smtp.received.filter((m) => m.to.includes(to))

/**
 * The token of the newest reset mail sent to `to`, read from its link (waiting for the background
 * send).
 */
async function tokenMailedTo(to: string, count = 1): Promise<string> {
  // Security notices (an API token created, two-factor turned on) go to the same address: only
  // reset mails count.
  const resetMails = () =>
    mailsTo(to)
      .map((m) => textOf(m))
      .filter((text) => text.includes('/reset-password?token='))
  await vi.waitFor(() => expect(resetMails().length).toBeGreaterThanOrEqual(count), {
    timeout: 10_000,
    interval: 20,
  })
  const text = resetMails().at(-1)!
  const link = /http:\/\/switchboard\.test\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)
  expect(link, text).not.toBeNull()
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
      host: smtp.host,
      port: smtp.port,
      username: SMTP_USERNAME,
      password: SMTP_PASSWORD,
      plaintext_auth_on_loopback: true,
      from_address: 'no-reply@example.com',
    },
  })
  expect(response.statusCode).toBe(200)
}

/** The audit events of one action (about one user, or all of them). */
async function auditActions(userId: string | null, action: string) {
  const query = t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'target_id', 'metadata'])
    .where('action', '=', action)
  const rows = await (userId === null
    ? query.execute()
    : query.where('target_id', '=', userId).execute())
  // JSON text on SQLite, jsonb on PostgreSQL.
  return rows.map((row) => ({
    ...row,
    metadata:
      typeof row.metadata === 'string'
        ? (JSON.parse(row.metadata) as Record<string, unknown>)
        : row.metadata,
  }))
}

describe('without SMTP', () => {
  it('says mail is not available, and refuses known and unknown addresses alike with 503', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/password-reset' })).json()).toEqual(
      { by_mail: false },
    )
    const known = await createUser(t)
    const a = await ask(known.email)
    const b = await ask(uniqueEmail('nobody'))
    expect([a.statusCode, b.statusCode]).toEqual([503, 503])
    expect(a.json().reason).toBe('NOT_CONFIGURED')
    expect(a.body).toBe(b.body)
    expect(await t.deps.db.selectFrom('password_resets').select('id').execute()).toEqual([])
  })
})

describe('asking for a link', () => {
  beforeAll(async () => configureSmtp())

  it('answers 202 with the same body for a known and an unknown address, and mails only the account', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/password-reset' })).json()).toEqual(
      { by_mail: true },
    )
    const known = await createUser(t)
    const unknown = uniqueEmail('nobody')
    const a = await ask(known.email.toUpperCase())
    const b = await ask(unknown)
    expect([a.statusCode, b.statusCode]).toEqual([202, 202])
    expect(a.body).toBe(b.body)
    expect(a.json()).toEqual({ link_valid_minutes: 30 })
    for (const header of ['content-type', 'cache-control', 'content-length'])
      expect(a.headers[header], header).toEqual(b.headers[header])

    const token = await tokenMailedTo(known.email)
    const mail = textOf(mailsTo(known.email).at(-1)!)
    expect(mail).toContain('within 30 minutes')
    expect(mail).toContain('Two-factor authentication stays on')
    await vi.waitFor(
      async () => expect(await auditActions(null, 'auth.password_reset_unknown')).toHaveLength(1),
      { timeout: 5000 },
    )
    expect(mailsTo(unknown)).toEqual([])
    const [unknownEvent] = await auditActions(null, 'auth.password_reset_unknown')
    expect(JSON.stringify(unknownEvent!.metadata)).toContain(unknown)

    // Hashing at rest: the row holds the SHA-256, and the token appears nowhere in the database or
    // the log.
    const rows = await t.deps.db
      .selectFrom('password_resets')
      .selectAll()
      .where('user_id', '=', known.user.id)
      .execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).toBe(sha256Hex(token))
    expect(rows[0]!.via).toBe('self')
    expect(new Date(rows[0]!.expires_at).getTime() - new Date(rows[0]!.created_at).getTime()).toBe(
      30 * 60 * 1000,
    )
    const dump = JSON.stringify(await t.deps.db.selectFrom('audit_events').selectAll().execute())
    expect(dump).not.toContain(token)
    expect(t.logs.join('\n')).not.toContain(token)
    expect(await auditActions(known.user.id, 'user.password_reset_requested')).toHaveLength(1)
  })

  it('takes the same time for a known and an unknown address (a sign test over alternating pairs)', async () => {
    const PAIRS = 24
    const known = await Promise.all(Array.from({ length: PAIRS / 2 }, () => createUser(t)))
    // Each unknown address is asked for twice as well, in the same turn as its known partner: the
    // address's request budget then has the same history on both sides (a first request creates
    // its counter, a second updates it), and only whether the address has an account differs.
    const unknown = known.map(() => uniqueEmail('nobody'))
    const since = t.clock.now().toISOString()
    const backgroundEvents = async () =>
      (
        await t.deps.db
          .selectFrom('audit_events')
          .select('id')
          .where('at', '>=', since)
          .where('action', 'in', ['auth.password_reset_unknown', 'user.password_reset_requested'])
          .execute()
      ).length
    let events = 0
    /**
     * One timed request, then a wait until its background work (audit event; mail) is done, so it
     * does not fall on the next.
     */
    const timed = async (email: string, mails: number | null): Promise<number> => {
      const started = process.hrtime.bigint()
      const response = await ask(email)
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      expect(response.statusCode).toBe(202)
      events++
      await vi.waitFor(async () => expect(await backgroundEvents()).toBe(events), {
        timeout: 10_000,
        interval: 5,
      })
      if (mails !== null)
        await vi.waitFor(() => expect(mailsTo(email).length).toBe(mails), {
          timeout: 10_000,
          interval: 5,
        })
      return ms
    }
    await timed(uniqueEmail('warm'), null)
    // Alternating pairs, the order within a pair alternating too, so load on the machine falls on
    // both alike. Without a difference, "known was faster" is a coin toss in each pair: a sign
    // test tells a systematic difference from noise even when the machine is loaded, where
    // medians of a few milliseconds swing widely. Its bounds (≤ 2 or ≥ 22 of 24, two-sided
    // p ≈ 0.0003) keep false alarms rare over the many runs of this test (at p < 0.01 one run in
    // a hundred would fail by chance, and each suite runs it on two engines); a lookup before
    // answering makes the known address slower in nearly every pair and still fails it.
    const pairs: Array<{ known: number; unknown: number }> = []
    for (let i = 0; i < PAIRS; i++) {
      // Each address twice at most (its budget is 3 per 15 minutes), each request from a new client
      // address.
      const person = known[i % known.length]!
      const nobody = unknown[i % unknown.length]!
      const mailsSoFar = i < known.length ? 1 : 2
      if (i % 2 === 0) {
        const k = await timed(person.email, mailsSoFar)
        pairs.push({ known: k, unknown: await timed(nobody, null) })
      } else {
        const u = await timed(nobody, null)
        pairs.push({ known: await timed(person.email, mailsSoFar), unknown: u })
      }
    }
    const knownFaster = pairs.filter((p) => p.known < p.unknown).length
    const median = (values: number[]) =>
      values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!
    const summary = `known ${median(pairs.map((p) => p.known)).toFixed(2)} ms, unknown ${median(pairs.map((p) => p.unknown)).toFixed(2)} ms (medians of ${PAIRS}); known faster in ${knownFaster} of ${PAIRS} pairs`
    console.log(`password reset request: ${summary}`)
    expect(knownFaster, summary).toBeGreaterThanOrEqual(3)
    expect(knownFaster, summary).toBeLessThanOrEqual(21)
  })

  it('limits requests per address (known or not, the same 429) and per client address', async () => {
    const known = await createUser(t)
    const unknown = uniqueEmail('nobody')
    for (const email of [known.email, unknown]) {
      for (let i = 0; i < 3; i++) expect((await ask(email)).statusCode).toBe(202)
    }
    const a = await ask(known.email)
    const b = await ask(unknown)
    expect([a.statusCode, b.statusCode]).toEqual([429, 429])
    expect(a.json().reason).toBe('RATE_LIMITED')
    expect(a.body).toBe(b.body)

    const ip = '203.0.113.77'
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await ask(uniqueEmail('burst'), ip)).statusCode)
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(202))
    expect(statuses[10]).toBe(429)
  })

  it('holds the per-address budget under a burst: of 10 concurrent requests 3 get through', async () => {
    const email = uniqueEmail('burst')
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => ask(email)))).map(
      (r) => r.statusCode,
    )
    expect(statuses.filter((s) => s === 202)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(7)
  })
})

describe('using a link', () => {
  beforeAll(async () => configureSmtp())

  it('says what the link is for, then sets the password, ends every session, keeps API tokens unless asked, and mails a notice', async () => {
    const alice = await createSignedInUser(t)
    const second = await login(t, alice.email, DEFAULT_PASSWORD)
    const apiToken = await createApiTokenFor(t, alice.token)
    await ask(alice.email)
    const token = await tokenMailedTo(alice.email)

    const view = await inspect(token)
    expect(view.statusCode).toBe(200)
    expect(view.json()).toMatchObject({
      email: alice.email,
      welcome: false,
      provider_only: false,
      provider_name: null,
      second_factor: false,
      api_tokens: 1,
    })

    const done = await complete({ token, new_password: NEW_PASSWORD })
    expect(done.statusCode).toBe(200)
    expect(done.json()).toEqual({
      sessions_revoked: 2,
      api_tokens_revoked: 0,
      api_tokens_kept: 1,
      second_factor: false,
    })
    expect((await me(alice.token)).statusCode).toBe(401)
    expect((await me(second.token)).statusCode).toBe(401)
    expect((await me(apiToken.token)).statusCode).toBe(200)
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: alice.email, password: DEFAULT_PASSWORD },
        })
      ).statusCode,
    ).toBe(401)
    await login(t, alice.email, NEW_PASSWORD)

    const [event] = await auditActions(alice.user.id, 'user.password_reset')
    expect(event!.metadata).toMatchObject({ via: 'self', sessions_revoked: 2, tokens_revoked: 0 })
    const outbox = await t.deps.db
      .selectFrom('mail_outbox')
      .select('kind')
      .where('user_id', '=', alice.user.id)
      .execute()
    expect(outbox.map((row) => row.kind)).toContain('password_reset')

    // Used: a second use, and the inspection, are refused with the link's own reason.
    for (const response of [
      await complete({ token, new_password: 'yet another passphrase 9' }),
      await inspect(token),
    ]) {
      expect(response.statusCode).toBe(400)
      expect(response.json().reason).toBe('RESET_LINK_INVALID')
    }
  })

  it('revokes every API token of the account when asked', async () => {
    const bob = await createSignedInUser(t)
    const tokens = [
      await createApiTokenFor(t, bob.token, 'one'),
      await createApiTokenFor(t, bob.token, 'two'),
    ]
    await ask(bob.email)
    const done = await complete({
      token: await tokenMailedTo(bob.email),
      new_password: NEW_PASSWORD,
      revoke_api_tokens: true,
    })
    expect(done.json()).toMatchObject({ api_tokens_revoked: 2, api_tokens_kept: 0 })
    for (const { token } of tokens) expect((await me(token)).statusCode).toBe(401)
  })

  it('keeps the second factor: the next sign-in with the new password still asks for it', async () => {
    const carol = await createSignedInUser(t)
    const { secret } = await enableMfa(t, { token: carol.token, password: DEFAULT_PASSWORD })
    await ask(carol.email)
    const token = await tokenMailedTo(carol.email)
    expect((await inspect(token)).json().second_factor).toBe(true)
    const done = await complete({ token, new_password: NEW_PASSWORD })
    expect(done.json().second_factor).toBe(true)
    const mfaToken = await loginForMfaToken(t, carol.email, NEW_PASSWORD)
    const verified = await verifyMfa(t, mfaToken, totpCode(secret, t.clock.now()))
    expect(verified.statusCode).toBe(200)
    expect(verified.json().user.email).toBe(carol.email)
  })

  it('refuses a password that breaks the rules and leaves the link usable', async () => {
    const dan = await createUser(t)
    await ask(dan.email)
    const token = await tokenMailedTo(dan.email)
    const weak = await complete({ token, new_password: 'password' })
    expect(weak.statusCode).toBe(400)
    expect(weak.json()).toMatchObject({
      reason: 'VALIDATION_FAILED',
      details: [{ field: 'new_password' }],
    })
    const sameAsEmail = await complete({ token, new_password: dan.email })
    expect(sameAsEmail.statusCode).toBe(400)
    expect((await complete({ token, new_password: NEW_PASSWORD })).statusCode).toBe(200)
  })

  it('is single use under a race: of two concurrent uses exactly one sets the password', async () => {
    for (let round = 0; round < 3; round++) {
      const erin = await createUser(t)
      await ask(erin.email)
      const token = await tokenMailedTo(erin.email)
      const results = await Promise.all([
        complete({ token, new_password: 'first racer passphrase 1' }),
        complete({ token, new_password: 'second racer passphrase 2' }),
      ])
      const statuses = results.map((r) => r.statusCode).sort()
      expect(statuses).toEqual([200, 400])
      const loser = results.find((r) => r.statusCode === 400)!
      expect(loser.json().reason).toBe('RESET_LINK_INVALID')
      const winner =
        results[0].statusCode === 200 ? 'first racer passphrase 1' : 'second racer passphrase 2'
      await login(t, erin.email, winner)
      expect(await auditActions(erin.user.id, 'user.password_reset')).toHaveLength(1)
    }
  })

  it('expires a mailed link after 30 minutes, and a newer reset spends the older links', async () => {
    const fay = await createUser(t)
    await ask(fay.email)
    const first = await tokenMailedTo(fay.email, 1)
    t.clock.advance(31 * 60)
    expect((await inspect(first)).json().reason).toBe('RESET_LINK_INVALID')
    expect((await complete({ token: first, new_password: NEW_PASSWORD })).json().reason).toBe(
      'RESET_LINK_INVALID',
    )

    await ask(fay.email)
    const second = await tokenMailedTo(fay.email, 2)
    await ask(fay.email)
    const third = await tokenMailedTo(fay.email, 3)
    expect((await complete({ token: third, new_password: NEW_PASSWORD })).statusCode).toBe(200)
    expect(
      (await complete({ token: second, new_password: 'another passphrase 77' })).json().reason,
    ).toBe('RESET_LINK_INVALID')
  })

  it('refuses unknown tokens, and links of a disabled account', async () => {
    expect((await inspect('x'.repeat(43))).json().reason).toBe('RESET_LINK_INVALID')
    const gus = await createUser(t)
    await ask(gus.email)
    const token = await tokenMailedTo(gus.email)
    await t.deps.db
      .updateTable('users')
      .set({ disabled: true })
      .where('id', '=', gus.user.id)
      .execute()
    expect((await complete({ token, new_password: NEW_PASSWORD })).json().reason).toBe(
      'RESET_LINK_INVALID',
    )
    // A disabled account asking again gets the same answer, and no mail.
    const before = mailsTo(gus.email).length
    expect((await ask(gus.email)).statusCode).toBe(202)
    await vi.waitFor(
      async () =>
        expect((await auditActions(gus.user.id, 'auth.password_reset_unknown')).length).toBe(1),
      { timeout: 5000 },
    )
    expect(mailsTo(gus.email).length).toBe(before)
  })
})

describe('an account that signs in only through an identity provider', () => {
  beforeAll(async () => configureSmtp())

  it('gets a mail saying to sign in with the provider, no link; links for it are refused', async () => {
    const oidcOnly = await createUser(t, { password: null })
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: 'corp', oidc_sub: 'sub-27' })
      .where('id', '=', oidcOnly.user.id)
      .execute()
    expect((await ask(oidcOnly.email)).statusCode).toBe(202)
    await vi.waitFor(() => expect(mailsTo(oidcOnly.email)).toHaveLength(1), { timeout: 10_000 })
    const text = textOf(mailsTo(oidcOnly.email)[0]!)
    expect(text).toContain('you sign in through corp')
    expect(text).toContain('http://switchboard.test/login')
    expect(text).not.toContain('reset-password')
    expect(
      await t.deps.db
        .selectFrom('password_resets')
        .select('id')
        .where('user_id', '=', oidcOnly.user.id)
        .execute(),
    ).toEqual([])

    const admin = await createSignedInUser(t, { isAdmin: true })
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${oidcOnly.user.id}/password-reset/link`,
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD },
    })
    expect(link.statusCode).toBe(409)
    expect(link.json().reason).toBe('PASSWORD_MANAGED_BY_PROVIDER')
  })

  it('an account with neither a password nor a provider can get one through a reset', async () => {
    const none = await createUser(t, { password: null })
    await ask(none.email)
    expect(
      (await complete({ token: await tokenMailedTo(none.email), new_password: NEW_PASSWORD }))
        .statusCode,
    ).toBe(200)
    await login(t, none.email, NEW_PASSWORD)
  })
})

describe("an administrator's reset links", () => {
  it('a copyable link (no mail needed): proof required, 24 hours, single use; never for oneself or with an API token', async () => {
    await configureSmtp(false)
    const admin = await createSignedInUser(t, { isAdmin: true })
    const hana = await createSignedInUser(t)
    const url = `/api/admin/users/${hana.user.id}/password-reset/link`
    const post = (token: string, payload: Record<string, unknown>, path = url) =>
      t.app.inject({ method: 'POST', url: path, headers: bearer(token), payload })

    expect((await post(admin.token, {})).json().reason).toBe('PASSWORD_REQUIRED')
    expect(
      (await post(admin.token, { current_password: 'wrong passphrase 1' })).json().reason,
    ).toBe('INVALID_PASSWORD')
    expect((await post(hana.token, { current_password: DEFAULT_PASSWORD })).statusCode).toBe(403)
    const apiToken = await createApiTokenFor(t, admin.token)
    expect((await post(apiToken.token, { current_password: DEFAULT_PASSWORD })).json().reason).toBe(
      'SESSION_REQUIRED',
    )
    const self = await post(
      admin.token,
      { current_password: DEFAULT_PASSWORD },
      `/api/admin/users/${admin.user.id}/password-reset/link`,
    )
    expect(self.json().reason).toBe('SELF_SERVICE_REQUIRED')
    expect(
      (
        await post(
          admin.token,
          { current_password: DEFAULT_PASSWORD },
          '/api/admin/users/no-such-user/password-reset/link',
        )
      ).statusCode,
    ).toBe(404)

    const created = await post(admin.token, { current_password: DEFAULT_PASSWORD })
    expect(created.statusCode).toBe(201)
    const { url: link, expires_at } = created.json()
    expect(new Date(expires_at).getTime() - t.clock.now().getTime()).toBeGreaterThan(
      23.9 * 3600 * 1000,
    )
    const token = new URL(link).searchParams.get('token')!
    expect(link).toBe(`http://switchboard.test/reset-password?token=${token}`)
    const [row] = await t.deps.db
      .selectFrom('password_resets')
      .select(['token_hash', 'via'])
      .where('user_id', '=', hana.user.id)
      .execute()
    expect(row).toEqual({ token_hash: sha256Hex(token), via: 'admin_link' })
    const [event] = await auditActions(hana.user.id, 'user.password_reset_requested')
    expect(event!.metadata).toMatchObject({ via: 'admin_link' })
    expect(JSON.stringify(event)).not.toContain(token)

    t.clock.advance(23 * 3600)
    expect((await complete({ token, new_password: NEW_PASSWORD })).statusCode).toBe(200)
    expect((await complete({ token, new_password: 'another passphrase 77' })).json().reason).toBe(
      'RESET_LINK_INVALID',
    )
    expect((await me(hana.token)).statusCode).toBe(401)

    // The administrator's session has ended meanwhile (23 hours): a fresh one.
    const fresh = await login(t, admin.email, DEFAULT_PASSWORD)
    const again = await post(fresh.token, { current_password: DEFAULT_PASSWORD })
    expect(again.statusCode, again.body).toBe(201)
    const later = new URL(again.json().url).searchParams.get('token')!
    t.clock.advance(24 * 3600 + 1)
    expect((await inspect(later)).json().reason).toBe('RESET_LINK_INVALID')
  })

  it('a mailed link: 503 without SMTP, else sent to the user (valid 30 minutes) and audited', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const ivan = await createUser(t)
    const url = `/api/admin/users/${ivan.user.id}/password-reset/mail`
    await configureSmtp(false)
    const off = await t.app.inject({ method: 'POST', url, headers: bearer(admin.token) })
    expect(off.statusCode).toBe(503)
    expect(off.json().reason).toBe('NOT_CONFIGURED')
    await configureSmtp(true)
    const sent = await t.app.inject({ method: 'POST', url, headers: bearer(admin.token) })
    expect(sent.statusCode).toBe(202)
    const token = await tokenMailedTo(ivan.email)
    expect(sent.body).not.toContain(token)
    const [event] = await auditActions(ivan.user.id, 'user.password_reset_requested')
    expect(event!.metadata).toMatchObject({ via: 'admin_mail' })
    expect((await complete({ token, new_password: NEW_PASSWORD })).statusCode).toBe(200)

    smtp.rejectRecipients = { code: 550, text: 'mailbox unavailable' }
    try {
      const failed = await t.app.inject({ method: 'POST', url, headers: bearer(admin.token) })
      expect(failed.statusCode).toBe(502)
      expect(failed.json().reason).toBe('UPSTREAM_FAILED')
      const live = await t.deps.db
        .selectFrom('password_resets')
        .select('id')
        .where('user_id', '=', ivan.user.id)
        .where('used_at', 'is', null)
        .execute()
      expect(live).toEqual([])
    } finally {
      smtp.rejectRecipients = null
    }
  })

  it('a provider-session user without a password can be sent a link by an administrator', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const jo = await createUser(t, { password: null })
    const session = await openSessionFor(t, jo.user.id)
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${jo.user.id}/password-reset/mail`,
      headers: bearer(admin.token),
    })
    expect(sent.statusCode).toBe(202)
    const done = await complete({
      token: await tokenMailedTo(jo.email),
      new_password: NEW_PASSWORD,
    })
    expect(done.json().sessions_revoked).toBe(1)
    expect((await me(session)).statusCode).toBe(401)
  })
})

describe('the welcome of an account an administrator creates without a password', () => {
  beforeAll(async () => configureSmtp())

  it('mails a set-your-password link, valid 7 days, that sets the first password', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const email = uniqueEmail('welcome')
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: bearer(admin.token),
      payload: { email, name: 'Wendy Welcome' },
    })
    expect(created.statusCode).toBe(201)
    const { welcome } = created.json()
    expect(welcome).toEqual({ mail: 'sent', link: null, expires_at: expect.any(String) })
    const validFor = Date.parse(welcome.expires_at) - t.clock.now().getTime()
    expect(validFor).toBeGreaterThan(7 * 86400_000 - 60_000)
    expect(validFor).toBeLessThanOrEqual(7 * 86400_000)
    const text = textOf(mailsTo(email).at(-1)!)
    expect(text).toContain('An account was created for you on Switchboard')
    expect(text).not.toContain('hopefully you')
    expect(text).not.toContain('Two-factor')

    const token = await tokenMailedTo(email)
    expect((await inspect(token)).json()).toMatchObject({ email, welcome: true })
    expect((await complete({ token, new_password: NEW_PASSWORD })).statusCode).toBe(200)
    await expect(login(t, email, NEW_PASSWORD)).resolves.toBeTruthy()
    const [event] = await auditActions(created.json().id, 'user.password_reset_requested')
    expect(event!.metadata).toMatchObject({ via: 'welcome' })
  })
})
