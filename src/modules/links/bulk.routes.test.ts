/**
 * POST /api/links/bulk: tags, sharing and deleting several links; checked per link, all or nothing,
 * audited.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, createTag, type LinkJson } from '../../../test/helpers/links.js'
import { createOrgWithRoles, type OrgWithRoles } from '../../../test/helpers/organizations.js'
import { addTeamMember, createTeam } from '../../../test/helpers/teams.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let org: OrgWithRoles
let alice: TestUser & SignedIn
beforeAll(async () => {
  org = await createOrgWithRoles(t)
  alice = await createSignedInUser(t)
})

const bulk = (user: SignedIn, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/links/bulk', headers: bearer(user.token), payload })
const getLink = async (user: SignedIn, id: string): Promise<LinkJson> =>
  (
    await t.app.inject({ method: 'GET', url: `/api/links/${id}`, headers: bearer(user.token) })
  ).json()
const searchIds = async (user: SignedIn, query: string): Promise<string[]> => {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/links?q=${query}`,
    headers: bearer(user.token),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ items: { id: string }[] }>().items.map((item) => item.id)
}
const auditOf = (action: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'metadata', 'actor_id'])
    .where('action', '=', action)
    .execute()

describe('bulk actions on links', () => {
  it('adds and removes one of your tags on several links, once each, and records it', async () => {
    const tag = await createTag(t, alice.token, 'reading')
    const [a, b] = await Promise.all([
      createLink(t, alice.token, { url: 'https://a.example/' }),
      createLink(t, alice.token, { url: 'https://b.example/' }),
    ])
    await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${a.id}`,
      headers: bearer(alice.token),
      payload: { tag_ids: [tag.id] },
    })

    const added = await bulk(alice, { action: 'add_tag', tag_id: tag.id, link_ids: [a.id, b.id] })
    expect(added.statusCode).toBe(200)
    expect(added.json()).toEqual({ action: 'add_tag', count: 2 })
    expect((await getLink(alice, a.id)).tag_ids).toEqual([tag.id])
    expect((await getLink(alice, b.id)).tag_ids).toEqual([tag.id])

    expect(
      (await bulk(alice, { action: 'remove_tag', tag_id: tag.id, link_ids: [a.id, b.id] })).json(),
    ).toEqual({ action: 'remove_tag', count: 2 })
    expect((await getLink(alice, b.id)).tag_ids).toEqual([])
    const audit = await auditOf('links.bulk_add_tag')
    expect(audit).toHaveLength(1)
    expect(audit[0]!.actor_id).toBe(alice.user.id)
    const metadata = JSON.parse(String(audit[0]!.metadata)) as {
      count: number
      link_ids: string[]
      tag_id: string
    }
    expect({ ...metadata, link_ids: [...metadata.link_ids].sort() }).toEqual({
      count: 2,
      link_ids: [a.id, b.id].sort(),
      tag_id: tag.id,
    })
  })

  it("refuses another person's tag and a missing tag_id (400), changing nothing", async () => {
    const link = await createLink(t, alice.token, { url: 'https://c.example/' })
    const foreign = await createTag(t, org.owner.token, 'theirs')
    expectReason(
      await bulk(alice, { action: 'add_tag', tag_id: foreign.id, link_ids: [link.id] }),
      400,
      'VALIDATION_FAILED',
    )
    expectReason(
      await bulk(alice, { action: 'add_tag', link_ids: [link.id] }),
      400,
      'VALIDATION_FAILED',
    )
    expectReason(
      await bulk(alice, { action: 'share', link_ids: [link.id] }),
      400,
      'VALIDATION_FAILED',
    )
    expect((await getLink(alice, link.id)).tag_ids).toEqual([])
  })

  it('shares several personal links with an organization, and makes them personal again', async () => {
    const [a, b] = await Promise.all([
      createLink(t, org.member.token, { url: 'https://share-a.example/' }),
      createLink(t, org.member.token, { url: 'https://share-b.example/' }),
    ])
    const shared = await bulk(org.member, {
      action: 'share',
      organization_id: org.id,
      link_ids: [a.id, b.id],
    })
    expect(shared.json()).toEqual({ action: 'share', count: 2 })
    expect((await getLink(org.owner, a.id)).organization_id).toBe(org.id)
    // A search reads the new owner too (SQLite keeps a copy of it beside the link's text).
    expect(await searchIds(org.owner, 'share-a.example')).toEqual([a.id])
    expect(await searchIds(org.member, 'share-a.example&owner=personal')).toEqual([])
    // The member created them, so may move them back.
    expect(
      (
        await bulk(org.member, { action: 'share', organization_id: null, link_ids: [a.id, b.id] })
      ).json(),
    ).toEqual({ action: 'share', count: 2 })
    expect(await searchIds(org.owner, 'share-a.example')).toEqual([])
    expect(await searchIds(org.member, 'share-a.example&owner=personal')).toEqual([a.id])
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/links/${a.id}`,
          headers: bearer(org.owner.token),
        })
      ).statusCode,
    ).toBe(404)
  })

  it('takes the tags of people who no longer see a moved link off it, as a transfer does', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const team = await createTeam(t, admin.token)
    await addTeamMember(t, admin.token, team.id, org.member.user.id)
    await addTeamMember(t, admin.token, team.id, org.admin.user.id)
    const [a, b] = await Promise.all([
      createLink(t, org.member.token, {
        url: 'https://tagged-a.example/',
        organization_id: org.id,
      }),
      createLink(t, org.member.token, {
        url: 'https://tagged-b.example/',
        organization_id: org.id,
      }),
    ])
    // Link a is shared with a team the organization's admin is in as well.
    const teamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/links/${a.id}`,
      headers: bearer(org.member.token),
      payload: { team_ids: [team.id] },
    })
    expect(teamed.statusCode).toBe(200)
    const tags = new Map<SignedIn, string>()
    for (const user of [org.owner, org.admin, org.member]) {
      const tag = await createTag(t, user.token, 'moved-away')
      tags.set(user, tag.id)
      const added = await bulk(user, { action: 'add_tag', tag_id: tag.id, link_ids: [a.id, b.id] })
      expect(added.json()).toEqual({ action: 'add_tag', count: 2 })
    }
    const made = await bulk(org.member, {
      action: 'share',
      organization_id: null,
      link_ids: [a.id, b.id],
    })
    expect(made.json()).toEqual({ action: 'share', count: 2 })
    const tagsOn = async (linkId: string) =>
      (
        await t.deps.db
          .selectFrom('link_tags')
          .select('tag_id')
          .where('link_id', '=', linkId)
          .execute()
      )
        .map((row) => row.tag_id)
        .sort()
    // The owner sees neither now, the admin still sees a through the team, the member owns both.
    expect(await tagsOn(a.id)).toEqual([tags.get(org.admin)!, tags.get(org.member)!].sort())
    expect(await tagsOn(b.id)).toEqual([tags.get(org.member)!])
    expect((await getLink(org.admin, a.id)).tag_ids).toEqual([tags.get(org.admin)])
    expect((await getLink(org.member, b.id)).tag_ids).toEqual([tags.get(org.member)])
  })

  it("refuses all when one link may not be changed: a member deleting the owner's shared link (403), nothing deleted", async () => {
    const own = await createLink(t, org.member.token, {
      url: 'https://mine.example/',
      organization_id: org.id,
    })
    const owners = await createLink(t, org.owner.token, {
      url: 'https://owners.example/',
      organization_id: org.id,
    })
    // The list says beforehand what the member may change (the console offers no Edit/Delete
    // otherwise).
    expect([
      (await getLink(org.member, own.id)).can_change,
      (await getLink(org.member, owners.id)).can_change,
    ]).toEqual([true, false])
    expect((await getLink(org.admin, owners.id)).can_change).toBe(true)
    expectReason(
      await bulk(org.member, { action: 'delete', link_ids: [own.id, owners.id] }),
      403,
      'FORBIDDEN',
    )
    expect((await getLink(org.member, own.id)).id).toBe(own.id)
    expect((await getLink(org.member, owners.id)).id).toBe(owners.id)
    // Tagging a shared link is the member's own label: allowed.
    const tag = await createTag(t, org.member.token, 'team')
    expect(
      (await bulk(org.member, { action: 'add_tag', tag_id: tag.id, link_ids: [own.id, owners.id] }))
        .statusCode,
    ).toBe(200)
    // The organization's admin may delete both.
    expect(
      (await bulk(org.admin, { action: 'delete', link_ids: [own.id, owners.id] })).json(),
    ).toEqual({ action: 'delete', count: 2 })
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/links/${own.id}`,
          headers: bearer(org.admin.token),
        })
      ).statusCode,
    ).toBe(404)
    expect(await auditOf('links.bulk_delete')).toHaveLength(1)
  })

  it('a link the caller cannot see makes the whole action 404; an outsider learns nothing', async () => {
    const mine = await createLink(t, alice.token, { url: 'https://seen.example/' })
    const theirs = await createLink(t, org.owner.token, {
      url: 'https://unseen.example/',
      organization_id: org.id,
    })
    expectReason(
      await bulk(alice, { action: 'delete', link_ids: [mine.id, theirs.id] }),
      404,
      'NOT_FOUND',
    )
    expectReason(
      await bulk(org.outsider, { action: 'delete', link_ids: [theirs.id] }),
      404,
      'NOT_FOUND',
    )
    expect((await getLink(alice, mine.id)).id).toBe(mine.id)
    expect((await getLink(org.owner, theirs.id)).id).toBe(theirs.id)
  })

  it('sharing into an organization that has the slug already is 409 on slug, and nothing moves', async () => {
    await createLink(t, org.owner.token, {
      url: 'https://wiki.example/',
      slug: 'bulk-wiki',
      organization_id: org.id,
    })
    const a = await createLink(t, org.admin.token, { url: 'https://a2.example/' })
    const b = await createLink(t, org.admin.token, {
      url: 'https://b2.example/',
      slug: 'bulk-wiki',
    })
    const response = await bulk(org.admin, {
      action: 'share',
      organization_id: org.id,
      link_ids: [a.id, b.id],
    })
    expectReason(response, 409, 'ALREADY_EXISTS')
    expect((await getLink(org.admin, a.id)).organization_id).toBeNull()
  })

  it('takes at most 100 distinct links', async () => {
    expectReason(
      await bulk(alice, {
        action: 'delete',
        link_ids: Array.from({ length: 101 }, (_, i) => `id${i}`),
      }),
      400,
      'VALIDATION_FAILED',
    )
    expectReason(
      await bulk(alice, { action: 'delete', link_ids: ['x', 'x'] }),
      400,
      'VALIDATION_FAILED',
    )
    expectReason(await bulk(alice, { action: 'delete', link_ids: [] }), 400, 'VALIDATION_FAILED')
  })

  it('two bulk deletes of the same links at once: each link is deleted once, the other answers 404 or the same count', async () => {
    const links = await Promise.all(
      [1, 2, 3].map((n) => createLink(t, alice.token, { url: `https://race${n}.example/` })),
    )
    const ids = links.map((link) => link.id)
    const answers = await Promise.all([
      bulk(alice, { action: 'delete', link_ids: ids }),
      bulk(alice, { action: 'delete', link_ids: ids }),
    ])
    const codes = answers.map((answer) => answer.statusCode).sort()
    expect(codes).toEqual([200, 404])
    expect(answers.find((answer) => answer.statusCode === 200)!.json()).toEqual({
      action: 'delete',
      count: 3,
    })
    // Deleted in bulk as one by one: each stays 30 days in Recently deleted, once.
    const deleted = (
      await t.app.inject({
        method: 'GET',
        url: '/api/links/deleted?limit=100',
        headers: bearer(alice.token),
      })
    ).json()
    expect(
      deleted.items
        .filter((item: { id: string }) => ids.includes(item.id))
        .map((item: { id: string }) => item.id)
        .sort(),
    ).toEqual([...ids].sort())
  })
})
