/**
 * A link whose owner changes leaves the collections its new owner may not hold it in
 * (docs/API.md#collections): a personal collection of the former owner, an organization's when it
 * leaves that organization — and the teams those collections are shared with stop seeing it.
 * Transfer to an organization, to oneself, an accepted offer, and a bulk share all do it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import { requestAs, type SignedIn, type TestUser } from '../../../test/helpers/factories.js'
import { createLink, linkTransfers, tagAll, tagOwnersOn } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'
import { createTeamWithPeople } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
let reader: TestUser & SignedIn
let team: { id: string }
let orgA: string
let orgB: string

beforeAll(async () => {
  let people: Array<TestUser & SignedIn>
  ;({ people, team } = await createTeamWithPeople(t, { count: 3, members: [0, 2] }))
  ;[alice, bob, reader] = people as [TestUser & SignedIn, TestUser & SignedIn, TestUser & SignedIn]
  orgA = (await createOrganization(t, alice.token)).id
  orgB = (await createOrganization(t, alice.token)).id
  await addOrgMember(t, alice.token, orgA, bob, 'member')
})

const api = (
  user: SignedIn,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload?: object,
) => requestAs(t, user, method, url, payload)

/** A collection shared with the team, holding the links (of its owner: the person or `org`). */
async function sharedCollection(links: string[], org: string | null = null): Promise<string> {
  const created = await api(alice, 'POST', '/api/collections', {
    name: 'Shared',
    team_ids: [team.id],
    ...(org !== null && { organization_id: org }),
  })
  expect(created.statusCode).toBe(201)
  const id: string = created.json().id
  expect(
    (await api(alice, 'PUT', `/api/collections/${id}/links`, { link_ids: links })).statusCode,
  ).toBe(200)
  return id
}

async function heldBy(collectionId: string): Promise<string[]> {
  const listed = await api(alice, 'GET', `/api/links?collection_id=${collectionId}&limit=50`)
  return listed.json().items.map((item: { id: string }) => item.id)
}

const seenByReader = async (linkId: string) =>
  (await api(reader, 'GET', `/api/links/${linkId}`)).statusCode

describe('a link whose owner changes', () => {
  it('transferred to an organization leaves the personal collection; its team loses it', async () => {
    const moving = await createLink(t, alice.token, { url: 'https://moving.example/' })
    const staying = await createLink(t, alice.token, { url: 'https://staying.example/' })
    const collection = await sharedCollection([moving.id, staying.id])
    expect(await seenByReader(moving.id)).toBe(200)
    const moved = await api(alice, 'POST', `/api/links/${moving.id}/transfer`, {
      organization_id: orgA,
    })
    expect(moved.statusCode).toBe(200)
    expect(await heldBy(collection)).toEqual([staying.id])
    expect(await seenByReader(moving.id)).toBe(404)
    expect(await seenByReader(staying.id)).toBe(200)
    expect((await api(alice, 'GET', `/api/collections/${collection}`)).json().link_count).toBe(1)
  })

  it('leaving an organization leaves its collections; moved to another, too', async () => {
    const toSelf = await createLink(t, alice.token, {
      url: 'https://to-self.example/',
      organization_id: orgA,
    })
    const toOther = await createLink(t, alice.token, {
      url: 'https://to-other.example/',
      organization_id: orgA,
    })
    const collection = await sharedCollection([toSelf.id, toOther.id], orgA)
    expect(await seenByReader(toSelf.id)).toBe(200)
    const mine = await api(alice, 'POST', `/api/links/${toSelf.id}/transfer`, {
      user_id: alice.user.id,
    })
    expect(mine.statusCode).toBe(200)
    expect(await heldBy(collection)).toEqual([toOther.id])
    expect(await seenByReader(toSelf.id)).toBe(404)
    const other = await api(alice, 'POST', `/api/links/${toOther.id}/transfer`, {
      organization_id: orgB,
    })
    expect(other.statusCode).toBe(200)
    expect(await heldBy(collection)).toEqual([])
    expect(await seenByReader(toOther.id)).toBe(404)
  })

  it('given to a fellow member by an accepted offer leaves the giver’s collection', async () => {
    const given = await createLink(t, alice.token, { url: 'https://given.example/' })
    const collection = await sharedCollection([given.id])
    const offered = await api(alice, 'POST', `/api/links/${given.id}/transfer`, {
      user_id: bob.user.id,
    })
    expect(offered.statusCode).toBe(202)
    // Offered, not moved: still in the collection.
    expect(await heldBy(collection)).toEqual([given.id])
    const accepted = await api(
      bob,
      'POST',
      `/api/links/transfer-offers/${offered.json().id}/accept`,
    )
    expect(accepted.statusCode).toBe(200)
    expect(await heldBy(collection)).toEqual([])
    expect(await seenByReader(given.id)).toBe(404)
    expect((await api(bob, 'GET', `/api/links/${given.id}`)).statusCode).toBe(200)
  })

  it('moved by a PATCH of organization_id leaves the collection; the tags of those who lose it go', async () => {
    const moving = await createLink(t, alice.token, { url: 'https://patch-moving.example/' })
    const collection = await sharedCollection([moving.id])
    await tagAll(t, [alice, reader], [moving.id])
    const moved = await api(alice, 'PATCH', `/api/links/${moving.id}`, { organization_id: orgA })
    expect(moved.statusCode).toBe(200)
    expect(moved.json().organization_id).toBe(orgA)
    expect(await heldBy(collection)).toEqual([])
    expect(await seenByReader(moving.id)).toBe(404)
    expect(await tagOwnersOn(t, moving.id)).toEqual([alice.user.id])
    // From one organization to another: out of the first one's collection, and its member Bob,
    // not in the second, loses his tag; Alice, in both, keeps hers.
    const shared = await sharedCollection([moving.id], orgA)
    await tagAll(t, [bob, reader], [moving.id])
    expect(await tagOwnersOn(t, moving.id)).toEqual(
      [alice.user.id, bob.user.id, reader.user.id].sort(),
    )
    const again = await api(alice, 'PATCH', `/api/links/${moving.id}`, { organization_id: orgB })
    expect(again.statusCode).toBe(200)
    expect(await heldBy(shared)).toEqual([])
    expect(await tagOwnersOn(t, moving.id)).toEqual([alice.user.id])
    // Each move is a change of owner, audited as a transfer; a PATCH that moves nothing is not.
    const unmoved = await api(alice, 'PATCH', `/api/links/${moving.id}`, { organization_id: orgB })
    expect(unmoved.statusCode).toBe(200)
    expect(await linkTransfers(t, moving.id)).toEqual([
      [alice.user.id, { user_id: alice.user.id }, { organization_id: orgA }],
      [alice.user.id, { organization_id: orgA }, { organization_id: orgB }],
    ])
  })

  it('transferred to an organization, the tags of the team that loses it go', async () => {
    const moving = await createLink(t, alice.token, { url: 'https://tagged-moving.example/' })
    await sharedCollection([moving.id])
    await tagAll(t, [alice, reader], [moving.id])
    const moved = await api(alice, 'POST', `/api/links/${moving.id}/transfer`, {
      organization_id: orgA,
    })
    expect(moved.statusCode).toBe(200)
    expect(await tagOwnersOn(t, moving.id)).toEqual([alice.user.id])
  })

  it('moved by a bulk share leaves the collection; one already there stays', async () => {
    const personal = await createLink(t, alice.token, { url: 'https://bulk-personal.example/' })
    const there = await createLink(t, alice.token, {
      url: 'https://bulk-there.example/',
      organization_id: orgA,
    })
    const mine = await sharedCollection([personal.id])
    const theirs = await sharedCollection([there.id], orgA)
    const shared = await api(alice, 'POST', '/api/links/bulk', {
      action: 'share',
      organization_id: orgA,
      link_ids: [personal.id, there.id],
    })
    expect(shared.statusCode).toBe(200)
    expect(await heldBy(mine)).toEqual([])
    expect(await heldBy(theirs)).toEqual([there.id])
    expectReason(await api(reader, 'GET', `/api/links/${personal.id}`), 404, 'NOT_FOUND')
    expect(await seenByReader(there.id)).toBe(200)
  })
})
