/**
 * An identity provider's groups decide who reaches a team's go-link: a SCIM Group PATCH (Okta's
 * and Entra's shapes) sent to one instance changes what /go/<slug> does for the person at their
 * next request on another instance of the same database — nothing remembers memberships. The
 * group's team reaches a link shared with it directly, and one in a collection shared with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp, type PeerInstance } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { PATCH_OP, scimClient, type ScimClient } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
let peer: PeerInstance
let owner: TestUser & SignedIn

beforeAll(async () => {
  peer = await startPeerInstance(t)
  owner = await createSignedInUser(t)
})
afterAll(async () => {
  await peer.close()
})

/**
 * A group pushed with the owner in it, a go-link of the owner's shared with its team, and another
 * (`<slug>-kept`) in a collection of the owner's shared with the team.
 */
async function groupWithLink(client: ScimClient, slug: string): Promise<string> {
  const pushed = await client.request('POST', '/Groups', {
    schemas: [GROUP],
    displayName: `${slug} group`,
    members: [{ value: owner.user.id }],
  })
  expect(pushed.statusCode).toBe(201)
  const groupId = pushed.json<{ id: string }>().id
  await createLink(t, owner.token, { url: `https://${slug}.example/`, slug, team_ids: [groupId] })
  const kept = await createLink(t, owner.token, {
    url: `https://${slug}.example/kept`,
    slug: `${slug}-kept`,
  })
  const collection = await t.app.inject({
    method: 'POST',
    url: '/api/collections',
    headers: bearer(owner.token),
    payload: { name: `${slug} runbooks`, team_ids: [groupId] },
  })
  expect(collection.statusCode, collection.body).toBe(201)
  const filled = await t.app.inject({
    method: 'PUT',
    url: `/api/collections/${collection.json<{ id: string }>().id}/links`,
    headers: bearer(owner.token),
    payload: { link_ids: [kept.id] },
  })
  expect(filled.statusCode, filled.body).toBe(200)
  return groupId
}

/** /go/<slug> for the person on the other instance. */
const goOnPeer = (person: SignedIn, slug: string) =>
  peer.app.inject({ method: 'GET', url: `/go/${slug}`, headers: bearer(person.token) })

async function patch(client: ScimClient, groupId: string, operations: unknown[]) {
  const response = await client.request('PATCH', `/Groups/${groupId}`, {
    schemas: [PATCH_OP],
    Operations: operations,
  })
  expect(response.statusCode, response.body).toBeLessThan(300)
}

describe("a SCIM group's go-links on two instances", () => {
  it('Okta: add, then remove by members[value eq …], counts at the next request', async () => {
    const client = await scimClient(t, 'Okta groups')
    const groupId = await groupWithLink(client, 'okta-runbook')
    const person = await createSignedInUser(t)
    expect((await goOnPeer(person, 'okta-runbook')).statusCode).toBe(404)
    await patch(client, groupId, [
      { op: 'add', path: 'members', value: [{ value: person.user.id }] },
    ])
    expect((await goOnPeer(person, 'okta-runbook')).headers.location).toBe(
      'https://okta-runbook.example/',
    )
    expect((await goOnPeer(person, 'okta-runbook-kept')).headers.location).toBe(
      'https://okta-runbook.example/kept',
    )
    await patch(client, groupId, [{ op: 'remove', path: `members[value eq "${person.user.id}"]` }])
    expect((await goOnPeer(person, 'okta-runbook')).statusCode).toBe(404)
    expect((await goOnPeer(person, 'okta-runbook-kept')).statusCode).toBe(404)
  })

  it('Entra: Add, then Remove with a value list, counts at the next request', async () => {
    const client = await scimClient(t, 'Entra groups')
    const groupId = await groupWithLink(client, 'entra-runbook')
    const person = await createSignedInUser(t)
    await patch(client, groupId, [
      { op: 'Add', path: 'members', value: [{ value: person.user.id }] },
    ])
    expect((await goOnPeer(person, 'entra-runbook')).headers.location).toBe(
      'https://entra-runbook.example/',
    )
    const listed = await peer.app.inject({
      method: 'GET',
      url: '/api/links?scope=shared',
      headers: bearer(person.token),
    })
    expect(
      listed
        .json()
        .items.map((link: { slug: string }) => link.slug)
        .sort(),
    ).toEqual(['entra-runbook', 'entra-runbook-kept'])
    await patch(client, groupId, [
      { op: 'Remove', path: 'members', value: [{ value: person.user.id }] },
    ])
    expect((await goOnPeer(person, 'entra-runbook')).statusCode).toBe(404)
    expect((await goOnPeer(person, 'entra-runbook-kept')).statusCode).toBe(404)
  })
})
