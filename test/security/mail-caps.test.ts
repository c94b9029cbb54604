/**
 * The instance is not a mail relay. Mail that users make it send to addresses of
 * their choosing — invitations, their resends, email-change links — is capped per recipient (3 per
 * address per 24 hours, across organizations: 429 RECIPIENT_MAIL_LIMIT) and per instance
 * (MAIL_HOURLY_LIMIT per hour: 429 INSTANCE_MAIL_LIMIT); a refused request stores and sends
 * nothing, a mail that could not be delivered is given back, and a burst passes exactly as many
 * as the caps allow. Names users choose appear only in the body, quoted — never in the Subject.
 * Real delivery to the SMTP stand-in.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type TestContext } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  uniqueEmail,
  type SignedIn,
  type TestUser,
} from '../helpers/factories.js'
import { createOrganization } from '../helpers/organizations.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../helpers/smtp-server.js'

let smtp: SmtpStandIn
beforeAll(async () => {
  smtp = await startSmtpStandIn()
})
afterAll(async () => smtp?.close())

async function configureSmtp(t: TestContext, admin: SignedIn) {
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: {
      current_password: DEFAULT_PASSWORD,
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      secure: false,
      from_address: 'switchboard@example.com',
      from_name: 'Switchboard',
    },
  })
  expect(response.statusCode).toBe(200)
}

const invite = (t: TestContext, token: string, orgId: string, email: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/invitations`,
    headers: bearer(token),
    payload: { email, role: 'member' },
  })
const resend = (t: TestContext, token: string, orgId: string, invitationId: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/invitations/${invitationId}/resend`,
    headers: bearer(token),
  })
const changeEmail = (t: TestContext, token: string, email: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/users/me/email',
    headers: bearer(token),
    payload: { email, password: DEFAULT_PASSWORD },
  })
const mailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email))
const pendingTo = (t: TestContext, email: string) =>
  t.deps.db
    .selectFrom('organization_invitations')
    .select('id')
    .where('email', '=', email)
    .where('revoked_at', 'is', null)
    .execute()

function expectCapped(
  response: LightMyRequestResponse,
  reason: 'RECIPIENT_MAIL_LIMIT' | 'INSTANCE_MAIL_LIMIT',
  maxSeconds: number,
) {
  expectReason(response, 429, reason)
  const retryAfter = Number(response.headers['retry-after'])
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds)
}

describe('per-recipient cap: 3 mails per address per 24 hours', () => {
  // Sessions outlive the day the test moves the clock by.
  const t = useTestApp({
    env: { RATE_LIMIT_GENERAL: '0', SESSION_TTL: '30d', SESSION_IDLE_TIMEOUT: '30d' },
  })
  let owners: Array<TestUser & SignedIn>
  beforeAll(async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await configureSmtp(t, admin)
    owners = await Promise.all(Array.from({ length: 4 }, () => createSignedInUser(t)))
  })

  it('a fourth invitation to one address, from a fourth organization, is 429 and stores and sends nothing', async () => {
    const target = uniqueEmail('target')
    const orgs = await Promise.all(owners.map((owner) => createOrganization(t, owner.token)))
    for (let i = 0; i < 3; i++)
      expect((await invite(t, owners[i]!.token, orgs[i]!.id, target)).statusCode).toBe(201)
    expectCapped(
      await invite(t, owners[3]!.token, orgs[3]!.id, target.toUpperCase()),
      'RECIPIENT_MAIL_LIMIT',
      24 * 3600,
    )
    expect(mailsTo(target)).toHaveLength(3)
    expect(await pendingTo(t, target)).toHaveLength(3)
    // Another address is not affected; a day later the address may be mailed again.
    expect((await invite(t, owners[3]!.token, orgs[3]!.id, uniqueEmail('other'))).statusCode).toBe(
      201,
    )
    t.clock.advance(24 * 3600 + 1)
    expect((await invite(t, owners[3]!.token, orgs[3]!.id, target)).statusCode).toBe(201)
    expect(mailsTo(target)).toHaveLength(4)
  })

  it('resends and email-change links count against the same address', async () => {
    const target = uniqueEmail('resent')
    const org = await createOrganization(t, owners[0]!.token)
    const created = await invite(t, owners[0]!.token, org.id, target)
    expect(created.statusCode).toBe(201)
    const id = created.json().id as string
    expect((await resend(t, owners[0]!.token, org.id, id)).statusCode).toBe(200)
    expect((await resend(t, owners[0]!.token, org.id, id)).statusCode).toBe(200)
    expectCapped(await resend(t, owners[0]!.token, org.id, id), 'RECIPIENT_MAIL_LIMIT', 24 * 3600)
    // Someone asking to move their account to that address cannot mail it a fourth time either.
    const mover = await createSignedInUser(t)
    expectCapped(await changeEmail(t, mover.token, target), 'RECIPIENT_MAIL_LIMIT', 24 * 3600)
    const row = await t.deps.db
      .selectFrom('users')
      .select('email_pending')
      .where('id', '=', mover.user.id)
      .executeTakeFirstOrThrow()
    expect(row.email_pending).toBeNull()
    expect(mailsTo(target)).toHaveLength(3)
  })

  it('email-change links alone: three to one address, the fourth 429', async () => {
    const target = uniqueEmail('moving')
    const movers = await Promise.all(Array.from({ length: 4 }, () => createSignedInUser(t)))
    for (const mover of movers.slice(0, 3))
      expect((await changeEmail(t, mover.token, target)).statusCode).toBe(202)
    expectCapped(await changeEmail(t, movers[3]!.token, target), 'RECIPIENT_MAIL_LIMIT', 24 * 3600)
    expect(mailsTo(target)).toHaveLength(3)
  })

  it('a mail the server refused is given back: it does not count', async () => {
    const target = uniqueEmail('refused')
    const org = await createOrganization(t, owners[1]!.token)
    smtp.rejectRecipients = { code: 550, text: 'mailbox unavailable' }
    try {
      // The invitation stands with its copyable link; the refused mail is not counted.
      for (let i = 0; i < 4; i++) {
        const refused = await invite(t, owners[1]!.token, org.id, target)
        expect(refused.statusCode).toBe(201)
        expect(refused.json().mail).toBe('failed')
      }
    } finally {
      smtp.rejectRecipients = null
    }
    for (let i = 0; i < 3; i++)
      expect((await invite(t, owners[1]!.token, org.id, target)).statusCode).toBe(201)
    expectCapped(
      await invite(t, owners[1]!.token, org.id, target),
      'RECIPIENT_MAIL_LIMIT',
      24 * 3600,
    )
  })

  it('a burst of 12 invitations to one address from 4 organizations: exactly 3 are sent', async () => {
    const target = uniqueEmail('burst')
    // Fresh owners: their own limit (10 invitations per 15 minutes) is not what this test is about.
    const senders = await Promise.all(Array.from({ length: 4 }, () => createSignedInUser(t)))
    const orgs = await Promise.all(senders.map((owner) => createOrganization(t, owner.token)))
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        invite(t, senders[i % 4]!.token, orgs[i % 4]!.id, target),
      ),
    )
    const statuses = responses.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 201)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(9)
    for (const response of responses.filter((r) => r.statusCode === 429))
      expect(response.json().reason).toBe('RECIPIENT_MAIL_LIMIT')
    expect(mailsTo(target)).toHaveLength(3)
  })

  it('organization and person names appear only in the body, quoted; the Subject is fixed', async () => {
    const target = uniqueEmail('subject')
    const spammer = await createSignedInUser(t, { name: 'Cheap Watches Dot Example' })
    const org = await createOrganization(t, spammer.token, 'WIN A PRIZE visit prize example')
    expect((await invite(t, spammer.token, org.id, target)).statusCode).toBe(201)
    const [mail] = mailsTo(target)
    const subject = /^Subject: (.*)$/m.exec(mail!.raw)![1]!
    expect(subject).toBe('Invitation to join an organization on Switchboard')
    expect(textOf(mail!)).toContain('"WIN A PRIZE visit prize example"')
    expect(textOf(mail!)).toContain('"Cheap Watches Dot Example"')
  })
})

describe('instance-wide hourly cap (MAIL_HOURLY_LIMIT=5)', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', MAIL_HOURLY_LIMIT: '5' } })
  let owner: TestUser & SignedIn
  beforeAll(async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    await configureSmtp(t, admin)
    owner = await createSignedInUser(t)
  })

  it('a burst of 8 mails to 8 addresses: 5 sent, 3 × 429 INSTANCE_MAIL_LIMIT; an hour later mail flows again', async () => {
    const org = await createOrganization(t, owner.token)
    const targets = Array.from({ length: 8 }, () => uniqueEmail('hourly'))
    const responses = await Promise.all(
      targets.map((target) => invite(t, owner.token, org.id, target)),
    )
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(5)
    const refused = responses.filter((r) => r.statusCode === 429)
    expect(refused).toHaveLength(3)
    for (const response of refused) expectCapped(response, 'INSTANCE_MAIL_LIMIT', 3600)
    expect(targets.flatMap(mailsTo)).toHaveLength(5)
    // Email-change links share the cap.
    const mover = await createSignedInUser(t)
    expectCapped(
      await changeEmail(t, mover.token, uniqueEmail('mover')),
      'INSTANCE_MAIL_LIMIT',
      3600,
    )
    // A refused one did not spend its recipient's allowance.
    const refusedTarget = targets[responses.findIndex((r) => r.statusCode === 429)]!
    t.clock.advance(3601)
    expect((await invite(t, owner.token, org.id, refusedTarget)).statusCode).toBe(201)
  })
})
