/**
 * Nobody is put into an organization without consent. Adding a member by email
 * creates an invitation; the answer does not tell whether the address has an account; the invitee
 * accepts or declines in GET /api/invitations (or by the mailed link); until then the
 * organization's go-links do not reach them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  uniqueEmail,
  type SignedIn,
  type TestUser,
  DEFAULT_PASSWORD,
} from '../helpers/factories.js'
import { createLink } from '../helpers/links.js'
import { createOrganization } from '../helpers/organizations.js'
import { startSmtpStandIn, textOf, type SmtpStandIn } from '../helpers/smtp-server.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let smtp: SmtpStandIn
let admin: TestUser & SignedIn

beforeAll(async () => {
  smtp = await startSmtpStandIn()
  admin = await createSignedInUser(t, { isAdmin: true })
  const configured = await t.app.inject({
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
    },
  })
  expect(configured.statusCode).toBe(200)
})
afterAll(async () => {
  await smtp?.close()
})

const addMember = (token: string, orgId: string, email: string, role = 'member') =>
  t.app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/members`,
    headers: bearer(token),
    payload: { email, role },
  })
const myInvitations = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/invitations', headers: bearer(token) })
const answer = (token: string, id: string, verb: 'accept' | 'decline') =>
  t.app.inject({ method: 'POST', url: `/api/invitations/${id}/${verb}`, headers: bearer(token) })
const isMember = async (orgId: string, userId: string) =>
  (await t.deps.db
    .selectFrom('organization_members')
    .select('user_id')
    .where('organization_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst()) !== undefined

describe('adding a member by email', () => {
  it('no_one_joins_an_organization_without_consent: the victim is not a member and /go/wiki does not reach the attacker URL', async () => {
    const attacker = await createSignedInUser(t)
    const victim = await createSignedInUser(t)
    await createLink(t, victim.token, { url: 'https://wiki.victim.example/', slug: 'wiki' })
    const org = await createOrganization(t, attacker.token, 'Totally Legit')
    await createLink(t, attacker.token, {
      url: 'https://evil.example/phish',
      slug: 'wiki',
      organization_id: org.id,
    })

    const response = await addMember(attacker.token, org.id, victim.email)
    expect(response.statusCode).toBe(202)
    expect(await isMember(org.id, victim.user.id)).toBe(false)
    const go = await t.app.inject({ method: 'GET', url: '/go/wiki', headers: bearer(victim.token) })
    expect(go.statusCode).toBe(302)
    expect(go.headers.location).toBe('https://wiki.victim.example/')
  })

  it('answers_the_same_whether_or_not_the_email_has_an_account', async () => {
    const owner = await createSignedInUser(t)
    const existing = await createSignedInUser(t, { name: 'Secret Name' })
    const org = await createOrganization(t, owner.token)
    const withAccount = await addMember(owner.token, org.id, existing.email)
    const without = await addMember(owner.token, org.id, uniqueEmail('nobody'))
    expect(withAccount.statusCode).toBe(without.statusCode)
    expect(Object.keys(withAccount.json()).sort()).toEqual(Object.keys(without.json()).sort())
    expect(Object.keys(withAccount.headers).sort()).toEqual(Object.keys(without.headers).sort())
    expect(withAccount.body).not.toContain('Secret Name')
    expect(withAccount.body).not.toContain(existing.user.id)
    // Both addresses get the same mail.
    for (const email of [existing.email, withAccount.json().email, without.json().email]) {
      expect(smtp.received.some((m) => m.to.includes(email))).toBe(true)
    }
  })
})

describe('GET /api/invitations', () => {
  it('lists_pending_invitations_to_the_account_and_accepts_or_declines_them', async () => {
    const owner = await createSignedInUser(t, { name: 'Inviting Owner' })
    const invitee = await createSignedInUser(t)
    const bystander = await createSignedInUser(t)
    const [orgA, orgB] = [
      await createOrganization(t, owner.token, 'Alpha Org'),
      await createOrganization(t, owner.token, 'Beta Org'),
    ]
    const a = (await addMember(owner.token, orgA.id, invitee.email, 'admin')).json()
    const b = (await addMember(owner.token, orgB.id, invitee.email)).json()

    const listed = await myInvitations(invitee.token)
    expect(listed.statusCode).toBe(200)
    expect(listed.json().items).toEqual([
      expect.objectContaining({
        id: b.id,
        organization_id: orgB.id,
        organization_name: 'Beta Org',
        role: 'member',
        invited_by_name: 'Inviting Owner',
      }),
      expect.objectContaining({
        id: a.id,
        organization_id: orgA.id,
        organization_name: 'Alpha Org',
        role: 'admin',
      }),
    ])
    // Nobody else sees them, nor answers them.
    expect((await myInvitations(bystander.token)).json().items).toEqual([])
    expectReason(await answer(bystander.token, a.id, 'accept'), 404, 'NOT_FOUND')
    expect(await isMember(orgA.id, bystander.user.id)).toBe(false)

    const accepted = await answer(invitee.token, a.id, 'accept')
    expect(accepted.statusCode).toBe(200)
    expect(accepted.json()).toMatchObject({ id: orgA.id, role: 'admin' })
    expect((await answer(invitee.token, b.id, 'decline')).statusCode).toBe(204)
    expect(await isMember(orgA.id, invitee.user.id)).toBe(true)
    expect(await isMember(orgB.id, invitee.user.id)).toBe(false)
    expect((await myInvitations(invitee.token)).json().items).toEqual([])

    // The declined invitation's mailed link does not work any more.
    const mail = smtp.received.filter((m) => m.to.includes(invitee.email)).at(-1)!
    const token = /token=([A-Za-z0-9_-]+)/.exec(textOf(mail))![1]
    const viaLink = await t.app.inject({
      method: 'POST',
      url: '/api/invitations/accept',
      headers: bearer(invitee.token),
      payload: { token },
    })
    expectReason(viaLink, 400, 'VALIDATION_FAILED')
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', orgB.id)
      .execute()
    expect(events.map((e) => e.action)).toContain('org.invitation_decline')
  })

  it('answers_one_invitation_once_under_a_burst_of_accepts_and_declines', async () => {
    const owner = await createSignedInUser(t)
    const invitee = await createSignedInUser(t)
    const org = await createOrganization(t, owner.token)
    const { id } = (await addMember(owner.token, org.id, invitee.email)).json()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        answer(invitee.token, id, i % 2 === 0 ? 'accept' : 'decline'),
      ),
    )
    const succeeded = results.filter((r) => r.statusCode === 200 || r.statusCode === 204)
    expect(succeeded).toHaveLength(1)
    for (const r of results) if (!succeeded.includes(r)) expectReason(r, 404, 'NOT_FOUND')
    expect(await isMember(org.id, invitee.user.id)).toBe(succeeded[0]!.statusCode === 200)
  })
})

describe('without SMTP', () => {
  it('still_invites_and_the_account_sees_it_in_GET_api_invitations', async () => {
    const disabled = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/smtp',
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD, enabled: false },
    })
    expect(disabled.statusCode).toBe(200)
    try {
      const owner = await createSignedInUser(t)
      const invitee = await createSignedInUser(t)
      const org = await createOrganization(t, owner.token)
      const before = smtp.received.length
      expect((await addMember(owner.token, org.id, invitee.email)).statusCode).toBe(202)
      expect((await addMember(owner.token, org.id, uniqueEmail('nobody'))).statusCode).toBe(202)
      expect(smtp.received.length).toBe(before)
      expect((await myInvitations(invitee.token)).json().items).toHaveLength(1)
    } finally {
      await t.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/smtp',
        headers: bearer(admin.token),
        payload: { current_password: DEFAULT_PASSWORD, enabled: true },
      })
    }
  })
})
