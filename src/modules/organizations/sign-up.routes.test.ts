/**
 * Joining from an invitation without an account: the link's page previews the invitation, the
 * holder creates the invited account and joins at once; an administrator can switch it off.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  cookieValue,
  createSignedInUser,
  login,
  uniqueEmail,
} from '../../../test/helpers/factories.js'
import { createOrgWithRoles, type OrgWithRoles } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const PASSWORD = 'a brand new passphrase 9'

async function invite(org: OrgWithRoles, email: string, role = 'member') {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/organizations/${org.id}/invitations`,
    headers: bearer(org.admin.token),
    payload: { email, role },
  })
  expect(response.statusCode).toBe(201)
  const body = response.json()
  return { ...body, token: new URL(body.link).searchParams.get('token')! }
}
const preview = (token: string) =>
  t.app.inject({ method: 'POST', url: '/api/invitations/preview', payload: { token } })
const signUp = (payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/invitations/sign-up', payload })
const setSignUp = (token: string, through_invitation: boolean) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/sign-up',
    headers: bearer(token),
    payload: { through_invitation },
  })
const auditOf = (targetId: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'metadata'])
    .where('target_id', '=', targetId)
    .execute()

describe('an invitation to an address without an account', () => {
  it('previews who invites where, then creates the account, joins and signs in once', async () => {
    const org = await createOrgWithRoles(t)
    const email = uniqueEmail('bob')
    const invitation = await invite(org, email, 'admin')
    expect(invitation.sign_up).toBe(true)

    const seen = await preview(invitation.token)
    expect(seen.statusCode).toBe(200)
    expect(seen.json()).toEqual({
      email,
      organization_name: expect.any(String),
      organization_slug: org.slug,
      role: 'admin',
      invited_by_name: 'Adam Admin',
      expires_at: invitation.expires_at,
      has_account: false,
      sign_up: true,
    })

    const done = await signUp({ token: invitation.token, name: ' Bob ', password: PASSWORD })
    expect(done.statusCode).toBe(201)
    const body = done.json()
    expect(body.user).toMatchObject({ email, name: 'Bob', has_password: true, is_admin: false })
    expect(body.organization).toMatchObject({ id: org.id, slug: org.slug, role: 'admin' })
    expect(cookieValue(done, 'token')).toBe(body.token)
    const orgs = await t.app.inject({
      method: 'GET',
      url: '/api/organizations',
      headers: bearer(body.token),
    })
    expect(orgs.json().items.map((o: { id: string }) => o.id)).toEqual([org.id])
    await expect(login(t, email, PASSWORD)).resolves.toBeTruthy()

    const userEvents = await auditOf(body.user.id)
    expect(userEvents.map((e) => e.action)).toContain('user.sign_up')
    const orgEvents = (await auditOf(org.id)).map((e) => e.action)
    expect(orgEvents).toContain('org.invitation_accept')
    expect(JSON.stringify(await auditOf(org.id))).not.toContain(invitation.token)

    // The link is spent: a second use is refused, and the page asks to sign in.
    expectReason(await preview(invitation.token), 400, 'VALIDATION_FAILED')
    expectReason(
      await signUp({ token: invitation.token, name: 'Again', password: PASSWORD }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('keeps the password rules and leaves the link pending on a refusal', async () => {
    const org = await createOrgWithRoles(t)
    const email = uniqueEmail('weak')
    const invitation = await invite(org, email)
    const weak = await signUp({ token: invitation.token, name: 'Weak', password: 'password' })
    expectReason(weak, 400, 'VALIDATION_FAILED')
    expect(weak.json().details.map((d: { field: string }) => d.field)).toEqual(['password'])
    expect((await preview(invitation.token)).statusCode).toBe(200)
    expectReason(
      await signUp({ token: 'x'.repeat(43), name: 'N', password: PASSWORD }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('asks an address that has an account to sign in instead (409)', async () => {
    const org = await createOrgWithRoles(t)
    const existing = await createSignedInUser(t)
    const invitation = await invite(org, existing.email)
    expect((await preview(invitation.token)).json()).toMatchObject({ has_account: true })
    const refused = await signUp({ token: invitation.token, name: 'Twin', password: PASSWORD })
    expectReason(refused, 409, 'ALREADY_EXISTS')
    expect((await preview(invitation.token)).statusCode).toBe(200)
  })

  it('an administrator switches it off: the inviter is told, the link cannot sign up', async () => {
    const org = await createOrgWithRoles(t)
    const admin = await createSignedInUser(t, { isAdmin: true })
    expectReason(await setSignUp(org.owner.token, false), 403, 'FORBIDDEN')
    const off = await setSignUp(admin.token, false)
    expect(off.statusCode).toBe(200)
    expect(off.json()).toEqual({ through_invitation: false, updated_at: expect.any(String) })
    try {
      const invitation = await invite(org, uniqueEmail('closed'))
      expect(invitation.sign_up).toBe(false)
      expect((await preview(invitation.token)).json()).toMatchObject({ sign_up: false })
      expectReason(
        await signUp({ token: invitation.token, name: 'Closed', password: PASSWORD }),
        403,
        'FORBIDDEN',
      )
      const events = await auditOf('sign_up')
      expect(events.map((e) => e.action)).toContain('settings.sign_up')
    } finally {
      expect((await setSignUp(admin.token, true)).json().through_invitation).toBe(true)
    }
  })
})
