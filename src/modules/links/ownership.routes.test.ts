/**
 * Ownership: deleted links stay 30 days in Recently deleted and can be restored (slug
 * conflicts handled, one winner in a race); links can be offered to a fellow member or transferred
 * to an organization; every delete, restore and transfer is audited.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, type SignedIn } from '../../../test/helpers/factories.js'
import { createLink, createTag } from '../../../test/helpers/links.js'
import {
  addOrgMember,
  createOrganization,
  createOrgWithRoles,
} from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const api = (user: SignedIn, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload: payload as object }),
  })

const deleted = async (user: SignedIn) =>
  (await api(user, 'GET', '/api/links/deleted')).json().items as Array<Record<string, unknown>>

const auditOf = (linkId: string) =>
  t.deps.db
    .selectFrom('audit_events')
    .select(['action', 'actor_id', 'metadata'])
    .where('target_id', '=', linkId)
    .orderBy('at')
    .execute()

describe('Recently deleted', () => {
  it('keeps a deleted link 30 days and restores it with its id, tags and click counts; both audited', async () => {
    const alice = await createSignedInUser(t)
    const tag = await createTag(t, alice.token, 'docs')
    const link = await createLink(t, alice.token, {
      slug: 'handbook',
      title: 'Handbook',
      url: 'https://handbook.example/',
      tag_ids: [tag.id],
    })
    const today = new Date(t.clock.now()).toISOString().slice(0, 10)
    await t.deps.db
      .insertInto('link_clicks')
      .values({ link_id: link.id, day: today, clicks: 7 })
      .execute()

    expect((await api(alice, 'DELETE', `/api/links/${link.id}`)).statusCode).toBe(204)
    expect((await api(alice, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
    const [entry] = await deleted(alice)
    expect(entry).toEqual({
      id: link.id,
      url: 'https://handbook.example/',
      title: 'Handbook',
      slug: 'handbook',
      organization_id: null,
      deleted_at: expect.any(String),
      purge_at: new Date(
        new Date(entry!.deleted_at as string).getTime() + 30 * 86_400_000,
      ).toISOString(),
    })
    // Someone else sees nothing of it and cannot restore it.
    const bob = await createSignedInUser(t)
    expect(await deleted(bob)).toEqual([])
    expect((await api(bob, 'POST', `/api/links/deleted/${link.id}/restore`, {})).statusCode).toBe(
      404,
    )

    const restored = await api(alice, 'POST', `/api/links/deleted/${link.id}/restore`, {})
    expect(restored.statusCode).toBe(200)
    expect(restored.json()).toMatchObject({
      id: link.id,
      slug: 'handbook',
      tag_ids: [tag.id],
      clicks_30d: 7,
      created_at: link.created_at,
    })
    expect(await deleted(alice)).toEqual([])
    expect((await auditOf(link.id)).map((event) => [event.action, event.actor_id])).toEqual([
      ['link.delete', alice.user.id],
      ['link.restore', alice.user.id],
    ])
  })

  it('refuses a slug taken meanwhile (409 on slug) and restores with another slug or none', async () => {
    const alice = await createSignedInUser(t)
    const first = await createLink(t, alice.token, { slug: 'wiki' })
    await api(alice, 'DELETE', `/api/links/${first.id}`)
    await createLink(t, alice.token, { slug: 'WIKI', url: 'https://new.example/' })
    const conflict = await api(alice, 'POST', `/api/links/deleted/${first.id}/restore`, {})
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'slug' })
    // Still there after the refusal.
    expect((await deleted(alice)).map((entry) => entry.id)).toEqual([first.id])
    const renamed = await api(alice, 'POST', `/api/links/deleted/${first.id}/restore`, {
      slug: 'wiki-old',
    })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json().slug).toBe('wiki-old')

    const second = await createLink(t, alice.token, { slug: 'tmp' })
    await api(alice, 'DELETE', `/api/links/${second.id}`)
    await createLink(t, alice.token, { slug: 'tmp' })
    const bare = await api(alice, 'POST', `/api/links/deleted/${second.id}/restore`, { slug: null })
    expect(bare.statusCode).toBe(200)
    expect(bare.json().slug).toBeNull()
    const [, restore] = await auditOf(second.id)
    expect(JSON.parse(restore!.metadata)).toMatchObject({ slug: null, deleted_slug: 'tmp' })
  })

  it('restores once when two restores race', async () => {
    const alice = await createSignedInUser(t)
    const link = await createLink(t, alice.token, { slug: 'raced' })
    await api(alice, 'DELETE', `/api/links/${link.id}`)
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api(alice, 'POST', `/api/links/deleted/${link.id}/restore`, {}),
      ),
    )
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([
      200, 404, 404, 404, 404, 404,
    ])
    expect(
      (await auditOf(link.id)).filter((event) => event.action === 'link.restore'),
    ).toHaveLength(1)
  })

  it('forgets a link after 30 days: not listed, not restorable, purged', async () => {
    const alice = await createSignedInUser(t)
    const link = await createLink(t, alice.token, { slug: 'old-news' })
    await api(alice, 'DELETE', `/api/links/${link.id}`)
    // Sessions do not last 30 days: the deletion is moved back in time instead of the clock
    // forward.
    const deletedDaysAgo = (days: number) =>
      t.deps.db
        .updateTable('deleted_links')
        .set({ deleted_at: new Date(t.clock.now().getTime() - days * 86_400_000).toISOString() })
        .where('id', '=', link.id)
        .execute()
    await deletedDaysAgo(29.9)
    expect((await deleted(alice)).map((entry) => entry.id)).toContain(link.id)
    await deletedDaysAgo(30.1)
    expect((await deleted(alice)).map((entry) => entry.id)).not.toContain(link.id)
    expect((await api(alice, 'POST', `/api/links/deleted/${link.id}/restore`, {})).statusCode).toBe(
      404,
    )
    expect(
      await t.deps.db.selectFrom('deleted_links').select('id').where('id', '=', link.id).execute(),
    ).toEqual([])
  })

  it("shows an organization's deleted links to its owners and admins and their creator, not to other members", async () => {
    const org = await createOrgWithRoles(t)
    const link = await createLink(t, org.member.token, { slug: 'shared', organization_id: org.id })
    const other = await createLink(t, org.owner.token, { slug: 'owners', organization_id: org.id })
    expect((await api(org.admin, 'DELETE', `/api/links/${link.id}`)).statusCode).toBe(204)
    expect((await api(org.owner, 'DELETE', `/api/links/${other.id}`)).statusCode).toBe(204)
    expect((await deleted(org.owner)).map((entry) => entry.id).sort()).toEqual(
      [link.id, other.id].sort(),
    )
    expect((await deleted(org.admin)).map((entry) => entry.id).sort()).toEqual(
      [link.id, other.id].sort(),
    )
    expect((await deleted(org.member)).map((entry) => entry.id)).toEqual([link.id])
    expect(await deleted(org.outsider)).toEqual([])
    expect(
      (await api(org.member, 'POST', `/api/links/deleted/${other.id}/restore`, {})).statusCode,
    ).toBe(404)
    expect(
      (await api(org.member, 'POST', `/api/links/deleted/${link.id}/restore`, {})).statusCode,
    ).toBe(200)
  })
})

describe('transfer', () => {
  it('gives a personal link to a fellow member who accepts the offer, then owns it alone; audited', async () => {
    const alice = await createSignedInUser(t)
    const bob = await createSignedInUser(t)
    const org = await createOrganization(t, alice.token)
    await addOrgMember(t, alice.token, org.id, bob, 'member')
    const tag = await createTag(t, alice.token, 'mine')
    const link = await createLink(t, alice.token, { slug: 'gift', tag_ids: [tag.id] })
    const offered = await api(alice, 'POST', `/api/links/${link.id}/transfer`, {
      user_id: bob.user.id,
    })
    expect(offered.statusCode).toBe(202)
    const moved = await api(bob, 'POST', `/api/links/transfer-offers/${offered.json().id}/accept`)
    expect(moved.statusCode).toBe(200)
    expect(moved.json()).toEqual({ id: link.id, user_id: bob.user.id, organization_id: null })
    expect((await api(alice, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
    const bobs = await api(bob, 'GET', `/api/links/${link.id}`)
    expect(bobs.json()).toMatchObject({ slug: 'gift', organization_id: null, tag_ids: [] })
    // Alice's tag is not left on a link she no longer sees.
    expect(
      await t.deps.db
        .selectFrom('link_tags')
        .select('tag_id')
        .where('link_id', '=', link.id)
        .execute(),
    ).toEqual([])
    const event = (await auditOf(link.id)).find((e) => e.action === 'link.transfer')
    expect(JSON.parse(event!.metadata)).toMatchObject({
      from: { user_id: alice.user.id },
      to: { user_id: bob.user.id },
    })
  })

  it('refuses a person outside the caller’s organizations (404, as for no one), neither or both targets (400), and a taken slug (409)', async () => {
    const alice = await createSignedInUser(t)
    const stranger = await createSignedInUser(t)
    const link = await createLink(t, alice.token, { slug: 'dup' })
    const notFound = await api(alice, 'POST', `/api/links/${link.id}/transfer`, {
      user_id: stranger.user.id,
    })
    expect(notFound.statusCode).toBe(404)
    expect(
      (
        await api(alice, 'POST', `/api/links/${link.id}/transfer`, { user_id: 'no-such-user' })
      ).json().message,
    ).toBe(notFound.json().message)
    expect((await api(alice, 'POST', `/api/links/${link.id}/transfer`, {})).statusCode).toBe(400)
    const org = await createOrganization(t, alice.token)
    expect(
      (
        await api(alice, 'POST', `/api/links/${link.id}/transfer`, {
          user_id: stranger.user.id,
          organization_id: org.id,
        })
      ).statusCode,
    ).toBe(400)
    await createLink(t, alice.token, { slug: 'DUP', organization_id: org.id })
    const taken = await api(alice, 'POST', `/api/links/${link.id}/transfer`, {
      organization_id: org.id,
    })
    expect(taken.statusCode).toBe(409)
    expect(taken.json().reason).toBe('ALREADY_EXISTS')
  })

  it("moves an organization's link only for its owners and admins, to an organization they may share with", async () => {
    const org = await createOrgWithRoles(t)
    const target = await createOrganization(t, org.admin.token)
    const link = await createLink(t, org.member.token, { slug: 'team', organization_id: org.id })
    expect(
      (
        await api(org.member, 'POST', `/api/links/${link.id}/transfer`, {
          organization_id: target.id,
        })
      ).statusCode,
    ).toBe(403)
    expect(
      (
        await api(org.outsider, 'POST', `/api/links/${link.id}/transfer`, {
          organization_id: target.id,
        })
      ).statusCode,
    ).toBe(404)
    expect(
      (
        await api(org.owner, 'POST', `/api/links/${link.id}/transfer`, {
          organization_id: target.id,
        })
      ).statusCode,
    ).toBe(404)
    const moved = await api(org.admin, 'POST', `/api/links/${link.id}/transfer`, {
      organization_id: target.id,
    })
    expect(moved.json()).toEqual({ id: link.id, user_id: null, organization_id: target.id })
    expect((await api(org.member, 'GET', `/api/links/${link.id}`)).statusCode).toBe(404)
  })
})
