/**
 * /api/go/preferences (docs/API.md#links-and-go-links): choosing, listing and forgetting, and stale
 * preferences.
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
import { createLink } from '../../../test/helpers/links.js'
import { addOrgMember, createOrganization } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
})

const put = (user: SignedIn, slug: string, payload: unknown) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/go/preferences/${slug}`,
    headers: bearer(user.token),
    payload: payload as object,
  })
const list = (user: SignedIn, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/go/preferences${query}`, headers: bearer(user.token) })
const forget = (user: SignedIn, slug: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/api/go/preferences/${slug}`,
    headers: bearer(user.token),
  })

describe('PUT /api/go/preferences/{slug}', () => {
  it('remembers a visible forwarding link with that slug: exactly the Preference fields', async () => {
    const link = await createLink(t, alice.token, {
      slug: 'Wiki',
      title: 'My wiki',
      url: 'https://wiki.example/',
    })
    const response = await put(alice, 'wiki', { link_id: link.id })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      slug: 'Wiki',
      link_id: link.id,
      title: 'My wiki',
      url: link.url,
      source: 'personal',
      source_kind: 'personal',
      updated_at: expect.any(String),
    })
  })

  it('names the organization as the source of a shared link, and replaces an earlier choice', async () => {
    const org = await createOrganization(t, bob.token, 'Bob & Co')
    await addOrgMember(t, bob.token, org.id, alice, 'member')
    const shared = await createLink(t, bob.token, {
      slug: 'standup',
      organization_id: org.id,
      url: 'https://meet.example/standup',
    })
    const own = await createLink(t, alice.token, {
      slug: 'standup',
      url: 'https://meet.example/mine',
    })
    expect((await put(alice, 'standup', { link_id: own.id })).json().source).toBe('personal')
    const replaced = await put(alice, 'STANDUP', { link_id: shared.id })
    expect(replaced.json()).toMatchObject({
      slug: 'standup',
      link_id: shared.id,
      source: 'Bob & Co',
    })
    expect(
      (await list(alice)).json().items.filter((p: { slug: string }) => p.slug === 'standup'),
    ).toHaveLength(1)
  })

  it('refuses a malformed slug (400 on slug), a link without that slug or not forwarding (400 on link_id), an invisible one (404)', async () => {
    const link = await createLink(t, alice.token, { slug: 'checked' })
    const parked = await createLink(t, alice.token, { slug: 'parked', forwarding_enabled: false })
    const slugless = await createLink(t, alice.token, {})
    const bobs = await createLink(t, bob.token, { slug: 'checked' })
    const cases: Array<[string, unknown, number, string | null]> = [
      ['bad.slug', { link_id: link.id }, 400, 'slug'],
      ['other', { link_id: link.id }, 400, 'link_id'],
      ['checked', { link_id: slugless.id }, 400, 'link_id'],
      ['parked', { link_id: parked.id }, 400, 'link_id'],
      ['checked', {}, 400, 'link_id'],
      ['checked', { link_id: link.id, extra: 1 }, 400, 'extra'],
      ['checked', { link_id: bobs.id }, 404, null],
      ['checked', { link_id: 'no-such-link' }, 404, null],
    ]
    for (const [slug, payload, status, field] of cases) {
      const response = await put(alice, slug, payload)
      expect(response.statusCode, `${slug} ${JSON.stringify(payload)}`).toBe(status)
      if (field !== null)
        expect(response.json().details.map((d: { field: string }) => d.field)).toContain(field)
    }
    expect((await list(alice)).json().items.map((p: { slug: string }) => p.slug)).not.toContain(
      'checked',
    )
  })
})

describe('GET and DELETE /api/go/preferences', () => {
  it('lists by slug in cursor pages, each user only their own', async () => {
    const carol = await createSignedInUser(t)
    for (const slug of ['delta', 'Alpha', 'charlie', 'bravo']) {
      const link = await createLink(t, carol.token, { slug })
      expect((await put(carol, slug, { link_id: link.id })).statusCode).toBe(200)
    }
    const slugs: string[] = []
    let cursor: string | null = null
    do {
      const page: { items: Array<{ slug: string }>; next_cursor: string | null } = (
        await list(carol, `?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`)
      ).json()
      slugs.push(...page.items.map((p) => p.slug))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(slugs).toEqual(['Alpha', 'bravo', 'charlie', 'delta'])
    expect((await list(bob)).json().items.map((p: { slug: string }) => p.slug)).not.toContain(
      'bravo',
    )
  })

  it('leaves out — and deletes — preferences whose link stopped forwarding, lost the slug, or was deleted', async () => {
    const dave = await createSignedInUser(t)
    const links = await Promise.all(
      ['one', 'two', 'three', 'four'].map((slug) => createLink(t, dave.token, { slug })),
    )
    for (const link of links) await put(dave, link.slug!, { link_id: link.id })
    const patch = (id: string, payload: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/links/${id}`,
        headers: bearer(dave.token),
        payload,
      })
    await patch(links[0]!.id, { forwarding_enabled: false })
    await patch(links[1]!.id, { slug: 'renamed' })
    await t.app.inject({
      method: 'DELETE',
      url: `/api/links/${links[2]!.id}`,
      headers: bearer(dave.token),
    })
    expect((await list(dave)).json().items.map((p: { slug: string }) => p.slug)).toEqual(['four'])
    const stored = await t.deps.db
      .selectFrom('go_preferences')
      .select('slug_key')
      .where('user_id', '=', dave.user.id)
      .execute()
    expect(stored).toEqual([{ slug_key: 'four' }])
  })

  it('forgets a preference (204), then 404; a malformed slug is simply not found', async () => {
    const link = await createLink(t, alice.token, { slug: 'forget-me' })
    await put(alice, 'forget-me', { link_id: link.id })
    expect((await forget(alice, 'FORGET-ME')).statusCode).toBe(204)
    expectReason(await forget(alice, 'forget-me'), 404, 'NOT_FOUND')
    expectReason(await forget(alice, 'not.a.slug'), 404, 'NOT_FOUND')
    expectReason(await forget(bob, 'wiki'), 404, 'NOT_FOUND')
  })
})
