/**
 * Invitations end to end: real delivery to an SMTP server in this process, then the link accepted
 * once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  uniqueEmail,
  type SignedIn,
  type TestUser,
  DEFAULT_PASSWORD,
} from '../../../test/helpers/factories.js'
import { createOrgWithRoles, type OrgRole } from '../../../test/helpers/organizations.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../../../test/helpers/smtp-server.js'

// Sessions outlive the 7 days after which the invitations expire.
const t = useTestApp({
  env: { RATE_LIMIT_GENERAL: '0', SESSION_TTL: '30d', SESSION_IDLE_TIMEOUT: '30d' },
})
let smtp: SmtpStandIn
let admin: TestUser & SignedIn

beforeAll(async () => {
  smtp = await startSmtpStandIn()
  admin = await createSignedInUser(t, { isAdmin: true })
})
afterAll(async () => {
  await smtp?.close()
})

const configureSmtp = (enabled: boolean) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: {
      current_password: DEFAULT_PASSWORD,
      enabled,
      host: smtp.host,
      port: smtp.port,
      secure: false,
      from_address: 'switchboard@example.com',
      from_name: 'Switchboard',
    },
  })

const invite = (token: string, orgId: string, email: string, role: OrgRole = 'member') =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/invitations`,
    headers: bearer(token),
    payload: { email, role },
  })
const accept = (token: string, invitationToken: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/invitations/accept',
    headers: bearer(token),
    payload: { token: invitationToken },
  })
const listInvitations = (token: string, orgId: string, query = '') =>
  t.app.inject({
    method: 'GET',
    url: `/api/organizations/${orgId}/invitations${query}`,
    headers: bearer(token),
  })
const resend = (token: string, orgId: string, invitationId: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/invitations/${invitationId}/resend`,
    headers: bearer(token),
  })
const revoke = (token: string, orgId: string, invitationId: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/api/organizations/${orgId}/invitations/${invitationId}`,
    headers: bearer(token),
  })

const pendingRows = (orgId: string) =>
  t.deps.db
    .selectFrom('organization_invitations')
    .select(['id', 'email'])
    .where('organization_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute()

const LINK = /http:\/\/switchboard\.test\/invitations\/accept\?token=([A-Za-z0-9_-]+)/

/** The token in the last mail the SMTP server received for `email`. */
function tokenMailedTo(email: string): string {
  const mail = smtp.received.filter((m) => m.to.includes(email)).at(-1)
  if (mail === undefined) throw new Error(`no mail for ${email}`)
  const match = LINK.exec(textOf(mail))
  if (match === null) throw new Error(`no link in: ${textOf(mail)}`)
  return match[1]!
}

// Joining without mail — the invitation stands, and its link is in the answer and the list.
describe('without SMTP', () => {
  it('creates the invitation and answers its link, which the invitee accepts once', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    const response = await invite(org.admin.token, org.id, invitee.email)
    expect(response.statusCode).toBe(201)
    const body = response.json()
    expect(body).toEqual({
      id: expect.any(String),
      email: invitee.email,
      role: 'member',
      expires_at: expect.any(String),
      link: expect.stringMatching(LINK),
      mail: 'not_configured',
      replaced: null,
      sign_up: true,
    })
    expect(smtp.received).toEqual([])
    // The pending list carries the same link, to owners and admins only.
    const listed = (await listInvitations(org.owner.token, org.id))
      .json()
      .items.find((i: { id: string }) => i.id === body.id)
    expect(listed.link).toBe(body.link)
    expectReason(await listInvitations(org.member.token, org.id), 403, 'FORBIDDEN')
    expectReason(await listInvitations(org.outsider.token, org.id), 404, 'NOT_FOUND')
    // Stored encrypted, never in clear; not in the audit trail or the logs.
    const token = LINK.exec(body.link)![1]!
    const row = await t.deps.db
      .selectFrom('organization_invitations')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(token)
    expect(row.token_encrypted).toMatch(/^v1\./)
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('target_id', '=', org.id)
      .execute()
    expect(JSON.stringify(audit)).not.toContain(token)
    expect(t.logs.join('\n')).not.toContain(token)
    // Consent stays: nobody joins until the invitee accepts.
    const members = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organizations/${org.id}/members`,
        headers: bearer(org.owner.token),
      })
    ).json()
    expect(members.items.map((m: { user_id: string }) => m.user_id)).not.toContain(invitee.user.id)
    expect((await accept(invitee.token, token)).json().role).toBe('member')
    expectReason(await accept(invitee.token, token), 400, 'VALIDATION_FAILED')
    // Once accepted, the encrypted copy is gone.
    const spent = await t.deps.db
      .selectFrom('organization_invitations')
      .select('token_encrypted')
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(spent.token_encrypted).toBeNull()
    // Access comes first: outsiders still get 404 and members 403.
    expectReason(await invite(org.outsider.token, org.id, uniqueEmail()), 404, 'NOT_FOUND')
    expectReason(await invite(org.member.token, org.id, uniqueEmail()), 403, 'FORBIDDEN')
  })

  it('says which pending invitation a new one replaced, and with which role; only the newest link works', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    const first = (await invite(org.owner.token, org.id, invitee.email, 'admin')).json()
    const second = (await invite(org.owner.token, org.id, invitee.email, 'member')).json()
    expect(second.replaced).toEqual({ id: first.id, role: 'admin' })
    const pending = (await listInvitations(org.owner.token, org.id))
      .json()
      .items.filter((i: { email: string }) => i.email === invitee.email)
    expect(pending.map((i: { id: string }) => i.id)).toEqual([second.id])
    expect(
      (
        await t.deps.db
          .selectFrom('organization_invitations')
          .select('token_encrypted')
          .where('id', '=', first.id)
          .executeTakeFirstOrThrow()
      ).token_encrypted,
    ).toBeNull()
    expectReason(await accept(invitee.token, LINK.exec(first.link)![1]!), 400, 'VALIDATION_FAILED')
    expect((await accept(invitee.token, LINK.exec(second.link)![1]!)).json().role).toBe('member')
  })

  it('a resend gives a new link without mail; the earlier one stops working', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    const created = (await invite(org.owner.token, org.id, invitee.email)).json()
    expectReason(await resend(org.outsider.token, org.id, created.id), 404, 'NOT_FOUND')
    expectReason(await resend(org.member.token, org.id, created.id), 403, 'FORBIDDEN')
    const resent = await resend(org.owner.token, org.id, created.id)
    expect(resent.statusCode).toBe(200)
    expect(resent.json()).toMatchObject({
      id: created.id,
      mail: 'not_configured',
      link: expect.stringMatching(LINK),
    })
    expect(resent.json().link).not.toBe(created.link)
    expectReason(
      await accept(invitee.token, LINK.exec(created.link)![1]!),
      400,
      'VALIDATION_FAILED',
    )
    expect((await accept(invitee.token, LINK.exec(resent.json().link)![1]!)).statusCode).toBe(200)
  })

  it('the same through POST …/members (202), and a link that no longer opens is listed as null', async () => {
    const org = await createOrgWithRoles(t)
    const email = uniqueEmail()
    const added = await t.app.inject({
      method: 'POST',
      url: `/api/organizations/${org.id}/members`,
      headers: bearer(org.owner.token),
      payload: { email, role: 'member' },
    })
    expect(added.statusCode).toBe(202)
    expect(added.json()).toMatchObject({
      email,
      mail: 'not_configured',
      link: expect.stringMatching(LINK),
      replaced: null,
      sign_up: true,
    })
    // A ciphertext moved from another row (or written under another key) does not open.
    const other = (await invite(org.owner.token, org.id, uniqueEmail())).json()
    const foreign = await t.deps.db
      .selectFrom('organization_invitations')
      .select('token_encrypted')
      .where('id', '=', other.id)
      .executeTakeFirstOrThrow()
    await t.deps.db
      .updateTable('organization_invitations')
      .set({ token_encrypted: foreign.token_encrypted })
      .where('id', '=', added.json().id)
      .execute()
    const listed = (await listInvitations(org.owner.token, org.id))
      .json()
      .items.find((i: { id: string }) => i.id === added.json().id)
    expect(listed.link).toBeNull()
  })
})

describe('with SMTP', () => {
  beforeAll(async () => {
    expect((await configureSmtp(true)).statusCode).toBe(200)
  })

  it('mails a single-use link that the invitee accepts once, joining with the role', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t, { name: 'Ivy Invitee' })
    const response = await invite(org.admin.token, org.id, invitee.email.toUpperCase(), 'admin')
    expect(response.statusCode).toBe(201)
    const body = response.json()
    expect(body).toEqual({
      id: expect.any(String),
      email: invitee.email,
      role: 'admin',
      expires_at: expect.any(String),
      link: expect.stringMatching(LINK),
      mail: 'sent',
      replaced: null,
      sign_up: true,
    })
    expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBeGreaterThan(
      7 * 86400_000 - 60_000,
    )
    expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBeLessThanOrEqual(7 * 86400_000)

    const mail = smtp.received.at(-1)!
    expect(mail.to).toEqual([invitee.email])
    expect(mail.from).toBe('switchboard@example.com')
    const text = textOf(mail)
    expect(text).toContain('Adam Admin')
    expect(text).toContain(invitee.email)
    const token = tokenMailedTo(invitee.email)
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/) // 256 bits, base64url

    // The answer's link is the mailed one; the token is stored as its hash and encrypted, never in
    // clear.
    expect(body.link).toBe(`http://switchboard.test/invitations/accept?token=${token}`)
    const row = await t.deps.db
      .selectFrom('organization_invitations')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(token)
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/)

    const accepted = await accept(invitee.token, token)
    expect(accepted.statusCode).toBe(200)
    expect(accepted.json()).toEqual({
      id: org.id,
      name: expect.any(String),
      slug: org.slug,
      plan: 'free',
      role: 'admin',
      created_at: expect.any(String),
    })
    const members = (
      await t.app.inject({
        method: 'GET',
        url: `/api/organizations/${org.id}/members`,
        headers: bearer(invitee.token),
      })
    ).json()
    expect(members.items).toContainEqual(
      expect.objectContaining({ user_id: invitee.user.id, role: 'admin' }),
    )

    const again = await accept(invitee.token, token)
    expectReason(again, 400, 'VALIDATION_FAILED')
    expect(again.json().details).toEqual([
      { field: 'token', message: 'is invalid, expired or already used', code: 'invalid' },
    ])

    // (The first four events are createOrgWithRoles' own invitations of its admin and member.)
    const audit = (
      await t.deps.db
        .selectFrom('audit_events')
        .select(['action', 'metadata'])
        .where('target_id', '=', org.id)
        .where('action', 'like', 'org.invitation_%')
        .orderBy('at')
        .orderBy('id')
        .execute()
    ).slice(4)
    expect(audit.map((e) => e.action)).toEqual(['org.invitation_create', 'org.invitation_accept'])
    expect(JSON.stringify(audit)).not.toContain(token)
    expect(t.logs.join('\n')).not.toContain(token)
  })

  it('accepts only for the account with the invited address (403), which an API token may also use', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    await invite(org.owner.token, org.id, invitee.email)
    const token = tokenMailedTo(invitee.email)
    const wrongUser = await accept(org.outsider.token, token)
    expectReason(wrongUser, 403, 'FORBIDDEN')
    expect(wrongUser.json().message).toContain('another email address')
    const { token: apiToken } = await createApiTokenFor(t, invitee.token)
    expect((await accept(apiToken, token)).json().role).toBe('member')
  })

  it('refuses an already-member (409 at invitation and at acceptance), malformed and unknown tokens (400)', async () => {
    const org = await createOrgWithRoles(t)
    const taken = await invite(org.owner.token, org.id, org.member.email)
    expectReason(taken, 409, 'ALREADY_EXISTS')
    expect(taken.json().details).toBe('email')

    const invitee = await createSignedInUser(t)
    await invite(org.owner.token, org.id, invitee.email)
    const token = tokenMailedTo(invitee.email)
    // Joined meanwhile by another way (as an administrator's tooling could): the link cannot add a
    // second membership.
    await t.deps.db
      .insertInto('organization_members')
      .values({
        organization_id: org.id,
        user_id: invitee.user.id,
        role: 'member',
        joined_at: t.clock.now().toISOString(),
      })
      .execute()
    expectReason(await accept(invitee.token, token), 409, 'ALREADY_EXISTS')

    for (const bad of ['x', 'A'.repeat(43), `${token}x`])
      expectReason(await accept(invitee.token, bad), 400, 'VALIDATION_FAILED')
    expectReason(
      await t.app.inject({
        method: 'POST',
        url: '/api/invitations/accept',
        headers: bearer(invitee.token),
        payload: {},
      }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('expires after 7 days', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    await invite(org.owner.token, org.id, invitee.email)
    const token = tokenMailedTo(invitee.email)
    t.clock.advance(7 * 86400 + 1)
    try {
      expectReason(await accept(invitee.token, token), 400, 'VALIDATION_FAILED')
      expect((await listInvitations(org.owner.token, org.id)).json().items).toEqual([])
    } finally {
      t.clock.advance(-(7 * 86400 + 1))
    }
  })

  it('lists pending invitations newest first to owners and admins; revoking kills the link', async () => {
    const org = await createOrgWithRoles(t)
    const emails = [uniqueEmail('first'), uniqueEmail('second'), uniqueEmail('third')]
    const ids: string[] = []
    for (const email of emails) {
      ids.push((await invite(org.owner.token, org.id, email)).json().id)
      t.clock.advance(1)
    }
    const listed = (await listInvitations(org.admin.token, org.id)).json()
    expect(listed.items.map((i: { email: string }) => i.email)).toEqual([...emails].reverse())
    expect(listed.items[0]).toEqual({
      id: ids[2],
      email: emails[2],
      role: 'member',
      expires_at: expect.any(String),
      created_at: expect.any(String),
      link: `http://switchboard.test/invitations/accept?token=${tokenMailedTo(emails[2]!)}`,
    })
    const page = (await listInvitations(org.admin.token, org.id, '?limit=2')).json()
    expect(
      (await listInvitations(org.admin.token, org.id, `?limit=2&cursor=${page.next_cursor}`))
        .json()
        .items.map((i: { id: string }) => i.id),
    ).toEqual([ids[0]])
    expectReason(await listInvitations(org.member.token, org.id), 403, 'FORBIDDEN')
    expectReason(await listInvitations(org.outsider.token, org.id), 404, 'NOT_FOUND')

    expect((await revoke(org.admin.token, org.id, ids[1]!)).statusCode).toBe(204)
    expectReason(await revoke(org.admin.token, org.id, ids[1]!), 404, 'NOT_FOUND')
    expectReason(await revoke(org.member.token, org.id, ids[0]!), 403, 'FORBIDDEN')
    expect(
      (await listInvitations(org.owner.token, org.id))
        .json()
        .items.map((i: { id: string }) => i.id),
    ).toEqual([ids[2], ids[0]])
    const holder = await createSignedInUser(t, { email: emails[1] })
    expectReason(await accept(holder.token, tokenMailedTo(emails[1]!)), 400, 'VALIDATION_FAILED')
  })

  it('involves owners only where an owner is involved', async () => {
    const org = await createOrgWithRoles(t)
    expectReason(await invite(org.admin.token, org.id, uniqueEmail(), 'owner'), 403, 'FORBIDDEN')
    const ownerInvite = await invite(org.owner.token, org.id, uniqueEmail(), 'owner')
    expect(ownerInvite.statusCode).toBe(201)
    expectReason(await revoke(org.admin.token, org.id, ownerInvite.json().id), 403, 'FORBIDDEN')
    expect((await revoke(org.owner.token, org.id, ownerInvite.json().id)).statusCode).toBe(204)
    const event = await t.deps.db
      .selectFrom('audit_events')
      .select(['actor_id', 'metadata'])
      .where('action', '=', 'org.invitation_revoke')
      .where('target_id', '=', org.id)
      .executeTakeFirstOrThrow()
    expect(event.actor_id).toBe(org.owner.user.id)
    expect(JSON.parse(event.metadata)).toMatchObject({
      invitation_id: ownerInvite.json().id,
      role: 'owner',
    })
  })

  it('replaces the pending invitation of the same address: only the newest link works', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    await invite(org.owner.token, org.id, invitee.email)
    const first = tokenMailedTo(invitee.email)
    await invite(org.owner.token, org.id, invitee.email, 'admin')
    const second = tokenMailedTo(invitee.email)
    expect(second).not.toBe(first)
    expect((await pendingRows(org.id)).map((r) => r.email)).toEqual([invitee.email])
    expectReason(await accept(invitee.token, first), 400, 'VALIDATION_FAILED')
    expect((await accept(invitee.token, second)).json().role).toBe('admin')
  })

  it('gives a link to one of two concurrent acceptances', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    await invite(org.owner.token, org.id, invitee.email)
    const token = tokenMailedTo(invitee.email)
    const results = await Promise.all([accept(invitee.token, token), accept(invitee.token, token)])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400])
  })

  it('keeps the invitation when the SMTP server refuses the mail: the answer says failed, the link still works', async () => {
    const org = await createOrgWithRoles(t)
    const invitee = await createSignedInUser(t)
    const earlier = (await invite(org.owner.token, org.id, invitee.email)).json()
    smtp.rejectRecipients = { code: 550, text: 'mailbox unavailable at internal-relay.corp' }
    let body
    try {
      const response = await invite(org.owner.token, org.id, invitee.email, 'admin')
      expect(response.statusCode).toBe(201)
      body = response.json()
      expect(body).toMatchObject({ mail: 'failed', replaced: { id: earlier.id, role: 'member' } })
      expect(response.body).not.toContain('internal-relay')
    } finally {
      smtp.rejectRecipients = null
    }
    expect((await pendingRows(org.id)).map((r) => r.id)).toEqual([body.id])
    expect(
      t.logs.some((line) => line.includes('reply code 550') && line.includes('invitation')),
    ).toBe(true)
    expect((await accept(invitee.token, LINK.exec(body.link)![1]!)).json().role).toBe('admin')
  })

  it('limits invitations to 10 per 15 minutes per user, counting refused ones (429)', async () => {
    const org = await createOrgWithRoles(t)
    for (let i = 0; i < 10; i++)
      expect((await invite(org.owner.token, org.id, 'not-an-email')).statusCode).toBe(400)
    const limited = await invite(org.owner.token, org.id, uniqueEmail())
    expectReason(limited, 429, 'RATE_LIMITED')
    expect(limited.json().retryAfter).toBeGreaterThan(14 * 60)
    expect((await invite(org.admin.token, org.id, uniqueEmail())).statusCode).toBe(201)
  })

  describe('resending', () => {
    const auditOf = (orgId: string, action: string) =>
      t.deps.db
        .selectFrom('audit_events')
        .select(['actor_id', 'metadata'])
        .where('target_id', '=', orgId)
        .where('action', '=', action)
        .execute()

    it('mails a new link on the same invitation, valid 7 days from now; the earlier link stops working', async () => {
      const org = await createOrgWithRoles(t)
      const invitee = await createSignedInUser(t)
      const created = (await invite(org.owner.token, org.id, invitee.email, 'admin')).json()
      const first = tokenMailedTo(invitee.email)
      t.clock.advance(3 * 86400)
      try {
        const response = await resend(org.admin.token, org.id, created.id)
        expect(response.statusCode).toBe(200)
        const body = response.json()
        expect(body).toMatchObject({
          id: created.id,
          email: invitee.email,
          role: 'admin',
          mail: 'sent',
        })
        expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBeGreaterThan(
          7 * 86400_000 - 60_000,
        )
        expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBeLessThanOrEqual(
          7 * 86400_000,
        )
        // The invitation keeps its place in the list (sent 3 days ago).
        expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBeGreaterThan(
          10 * 86400_000 - 60_000,
        )
        const second = tokenMailedTo(invitee.email)
        expect(second).not.toBe(first)
        expect(textOf(smtp.received.at(-1)!)).toContain('Adam Admin')
        // Still one pending invitation, listed with its new expiry.
        const { mail: _mail, ...listed } = body
        expect(
          (await listInvitations(org.owner.token, org.id))
            .json()
            .items.filter((i: { id: string }) => i.id === created.id),
        ).toEqual([listed])
        expect(body.link).toBe(`http://switchboard.test/invitations/accept?token=${second}`)
        expectReason(await accept(invitee.token, first), 400, 'VALIDATION_FAILED')
        expect((await accept(invitee.token, second)).json().role).toBe('admin')
        // Accepted: nothing left to resend.
        expectReason(await resend(org.owner.token, org.id, created.id), 404, 'NOT_FOUND')
      } finally {
        t.clock.advance(-3 * 86400)
      }
      const events = await auditOf(org.id, 'org.invitation_resend')
      expect(events).toHaveLength(1)
      expect(events[0]!.actor_id).toBe(org.admin.user.id)
      expect(JSON.parse(events[0]!.metadata)).toEqual({
        invitation_id: created.id,
        email: invitee.email,
        role: 'admin',
      })
      expect(JSON.stringify(events)).not.toMatch(/[A-Za-z0-9_-]{43}/)
    })

    it('involves owners only for an owner invitation; members, outsiders and ended invitations are refused', async () => {
      const org = await createOrgWithRoles(t)
      const ownerInvite = (await invite(org.owner.token, org.id, uniqueEmail(), 'owner')).json()
      const memberInvite = (await invite(org.owner.token, org.id, uniqueEmail(), 'member')).json()
      const mails = smtp.received.length
      expectReason(await resend(org.admin.token, org.id, ownerInvite.id), 403, 'FORBIDDEN')
      expectReason(await resend(org.member.token, org.id, memberInvite.id), 403, 'FORBIDDEN')
      expectReason(await resend(org.outsider.token, org.id, memberInvite.id), 404, 'NOT_FOUND')
      expectReason(await resend(org.owner.token, org.id, 'not-an-id'), 404, 'NOT_FOUND')
      expect(smtp.received.length).toBe(mails)
      expect((await resend(org.owner.token, org.id, ownerInvite.id)).statusCode).toBe(200)
      expect((await revoke(org.owner.token, org.id, memberInvite.id)).statusCode).toBe(204)
      expectReason(await resend(org.owner.token, org.id, memberInvite.id), 404, 'NOT_FOUND')
      const other = await createOrgWithRoles(t)
      expectReason(await resend(other.owner.token, other.id, ownerInvite.id), 404, 'NOT_FOUND')
      t.clock.advance(7 * 86400 + 1)
      try {
        expectReason(await resend(org.owner.token, org.id, ownerInvite.id), 404, 'NOT_FOUND')
      } finally {
        t.clock.advance(-(7 * 86400 + 1))
      }
    })

    it('keeps the new link when the SMTP server refuses the resent mail: the answer says failed', async () => {
      const org = await createOrgWithRoles(t)
      const invitee = await createSignedInUser(t)
      const created = (await invite(org.owner.token, org.id, invitee.email)).json()
      smtp.rejectRecipients = { code: 550, text: 'mailbox unavailable at internal-relay.corp' }
      let resent
      try {
        const response = await resend(org.owner.token, org.id, created.id)
        expect(response.statusCode).toBe(200)
        resent = response.json()
        expect(resent.mail).toBe('failed')
        expect(response.body).not.toContain('internal-relay')
      } finally {
        smtp.rejectRecipients = null
      }
      expectReason(
        await accept(invitee.token, LINK.exec(created.link)![1]!),
        400,
        'VALIDATION_FAILED',
      )
      expect((await accept(invitee.token, LINK.exec(resent.link)![1]!)).statusCode).toBe(200)
    })

    it('lets concurrent resends take turns: one invitation, and the link of the last one works', async () => {
      const org = await createOrgWithRoles(t)
      const invitee = await createSignedInUser(t)
      const created = (await invite(org.owner.token, org.id, invitee.email)).json()
      const before = smtp.received.length
      // Two resends: with the invitation that is the 3 mails an address may receive in a day.
      const results = await Promise.all(
        [1, 2].map(() => resend(org.owner.token, org.id, created.id)),
      )
      expect(results.map((r) => r.statusCode)).toEqual([200, 200])
      expect((await pendingRows(org.id)).filter((r) => r.email === invitee.email)).toHaveLength(1)
      const mailed = smtp.received.slice(before).filter((m) => m.to.includes(invitee.email))
      expect(mailed).toHaveLength(2)
      const tokens = mailed.map((m) => LINK.exec(textOf(m))![1]!)
      const accepted = await Promise.all(tokens.map((token) => accept(invitee.token, token)))
      // Exactly one of the two links is the current one.
      expect(accepted.map((r) => r.statusCode).sort()).toEqual([200, 400])
    })
  })
})
