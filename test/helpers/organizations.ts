/** Organizations and their members, made through the API like a client would. */
import { randomBytes } from 'node:crypto'
import type { TestContext } from './app.js'
import { bearer, createSignedInUser, type SignedIn, type TestUser } from './factories.js'

export type OrgRole = 'owner' | 'admin' | 'member'

export async function createOrganization(
  t: TestContext,
  token: string,
  name = `Org ${randomBytes(4).toString('hex')}`,
): Promise<{ id: string; slug: string; name: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/organizations',
    headers: bearer(token),
    payload: { name },
  })
  if (response.statusCode !== 201)
    throw new Error(`organization creation failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

/**
 * Makes `invitee` a member the way people join: the organization invites the address
 * (POST …/members), the invitee accepts it from GET /api/invitations.
 */
export async function addOrgMember(
  t: TestContext,
  token: string,
  organizationId: string,
  invitee: { email: string; token: string },
  role: OrgRole,
): Promise<void> {
  const invited = await t.app.inject({
    method: 'POST',
    url: `/api/organizations/${organizationId}/members`,
    headers: bearer(token),
    payload: { email: invitee.email, role },
  })
  if (invited.statusCode !== 202)
    throw new Error(`inviting a member failed: ${invited.statusCode} ${invited.body}`)
  const accepted = await t.app.inject({
    method: 'POST',
    url: `/api/invitations/${invited.json().id}/accept`,
    headers: bearer(invitee.token),
  })
  if (accepted.statusCode !== 200)
    throw new Error(`accepting the invitation failed: ${accepted.statusCode} ${accepted.body}`)
}

export interface OrgWithRoles {
  id: string
  slug: string
  owner: TestUser & SignedIn
  admin: TestUser & SignedIn
  member: TestUser & SignedIn
  outsider: TestUser & SignedIn
}

/** An organization with one signed-in user in each role, and one outsider. */
export async function createOrgWithRoles(t: TestContext): Promise<OrgWithRoles> {
  const [owner, admin, member, outsider] = await Promise.all([
    createSignedInUser(t, { name: 'Olive Owner' }),
    createSignedInUser(t, { name: 'Adam Admin' }),
    createSignedInUser(t, { name: 'Mia Member' }),
    createSignedInUser(t, { name: 'Otto Outsider' }),
  ])
  const organization = await createOrganization(t, owner.token)
  await addOrgMember(t, owner.token, organization.id, admin, 'admin')
  await addOrgMember(t, owner.token, organization.id, member, 'member')
  return { id: organization.id, slug: organization.slug, owner, admin, member, outsider }
}

/**
 * A signed-in person who is a member of an organization another signed-in person owns: the person
 * of the list and go-link tests at scale, whose links and organization's links are what they see.
 */
export async function createOrganizationMember(t: TestContext): Promise<{
  member: TestUser & SignedIn
  owner: TestUser & SignedIn
  organizationId: string
}> {
  const member = await createSignedInUser(t)
  const owner = await createSignedInUser(t)
  const organization = await createOrganization(t, owner.token)
  await addOrgMember(t, owner.token, organization.id, member, 'member')
  return { member, owner, organizationId: organization.id }
}
