/**
 * Tags (docs/API.md#links-and-go-links): the caller's own labels, CRUD, uniqueness ignoring case,
 * isolation.
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
import { createLink, createTag } from '../../../test/helpers/links.js'
import { createOrgWithRoles } from '../../../test/helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let alice: TestUser & SignedIn
let bob: TestUser & SignedIn
beforeAll(async () => {
  ;[alice, bob] = await Promise.all([createSignedInUser(t), createSignedInUser(t)])
})

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
const call = (user: SignedIn, method: Method, url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: `/api/tags${url}`,
    headers: bearer(user.token),
    ...(payload !== undefined && { payload: payload as object }),
  })

describe('tags', () => {
  it('creates a tag: exactly the Tag fields, the name trimmed, the colour lower-cased', async () => {
    const response = await call(alice, 'POST', '', { name: '  Reading list ', color: '#FFAA00' })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Reading list',
      color: '#ffaa00',
      link_count: 0,
      created_at: expect.any(String),
      updated_at: response.json().created_at,
    })
    expect((await call(alice, 'GET', `/${response.json().id}`)).json()).toEqual(response.json())
    expect((await call(alice, 'POST', '', { name: 'No colour' })).json().color).toBeNull()
  })

  it('keeps names unique per user ignoring case (409 on name), also when renaming; other users may reuse them', async () => {
    await createTag(t, alice.token, 'Work')
    const duplicate = await call(alice, 'POST', '', { name: 'WORK' })
    expectReason(duplicate, 409, 'ALREADY_EXISTS')
    expect(duplicate.json().details).toBe('name')
    const other = await createTag(t, alice.token, 'Home')
    expectReason(
      await call(alice, 'PATCH', `/${other.id}`, { name: 'work' }),
      409,
      'ALREADY_EXISTS',
    )
    expect((await call(alice, 'PATCH', `/${other.id}`, { name: 'HOME' })).json().name).toBe('HOME')
    expect((await call(bob, 'POST', '', { name: 'work' })).statusCode).toBe(201)
  })

  it('PUT and PATCH take the same partial body; null removes the colour; {} is a 400', async () => {
    const tag = await createTag(t, alice.token, 'Partial', '#000000')
    const put = await call(alice, 'PUT', `/${tag.id}`, { color: '#ABCDEF' })
    expect(put.statusCode).toBe(200)
    expect(put.json()).toMatchObject({ name: 'Partial', color: '#abcdef' })
    const patch = await call(alice, 'PATCH', `/${tag.id}`, { name: 'Renamed', color: null })
    expect(patch.json()).toMatchObject({ id: tag.id, name: 'Renamed', color: null })
    for (const method of ['PUT', 'PATCH'] as const) {
      expect((await call(alice, method, `/${tag.id}`, {})).json().details).toEqual([
        { field: 'body', message: 'must contain at least one field', code: 'too_few_fields' },
      ])
    }
  })

  it('validates name and colour, and refuses unknown fields', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: 'tab\there' }, 'name'],
      [{ name: 'ok', color: 'red' }, 'color'],
      [{ name: 'ok', color: '#12345' }, 'color'],
      [{ name: 'ok', link_count: 3 }, 'link_count'],
    ]
    for (const [payload, field] of cases) {
      const response = await call(alice, 'POST', '', payload)
      expectReason(response, 400, 'VALIDATION_FAILED')
      expect(
        response.json().details.map((d: { field: string }) => d.field),
        JSON.stringify(payload),
      ).toContain(field)
    }
    expect((await call(alice, 'POST', '', { name: 'x'.repeat(64) })).statusCode).toBe(201)
  })

  it("answers 404 for another user's tag on every route, and changes nothing", async () => {
    const tag = await createTag(t, alice.token, 'Private', '#111111')
    for (const [method, payload] of [
      ['GET'],
      ['PUT', { name: 'Mine' }],
      ['PATCH', { name: 'Mine' }],
      ['DELETE'],
    ] as const) {
      expectReason(await call(bob, method, `/${tag.id}`, payload), 404, 'NOT_FOUND')
    }
    expect(
      (await call(bob, 'GET', '?limit=200')).json().items.map((x: { id: string }) => x.id),
    ).not.toContain(tag.id)
    expect((await call(alice, 'GET', `/${tag.id}`)).json()).toMatchObject({
      name: 'Private',
      color: '#111111',
    })
  })

  it('deletes a tag (204, then 404); its links stay, without it', async () => {
    const tag = await createTag(t, alice.token, 'Doomed')
    const link = await createLink(t, alice.token, { tag_ids: [tag.id] })
    expect((await call(alice, 'DELETE', `/${tag.id}`)).statusCode).toBe(204)
    expectReason(await call(alice, 'DELETE', `/${tag.id}`), 404, 'NOT_FOUND')
    expectReason(await call(alice, 'GET', `/${tag.id}`), 404, 'NOT_FOUND')
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/links/${link.id}`,
      headers: bearer(alice.token),
    })
    expect(after.json().tag_ids).toEqual([])
  })

  it('lists by name ignoring case, then id, in cursor pages', async () => {
    const carol = await createSignedInUser(t)
    for (const name of ['beta', 'Alpha', 'gamma', 'Delta', 'epsilon'])
      await createTag(t, carol.token, name)
    const names: string[] = []
    let cursor: string | null = null
    do {
      const page: { items: Array<{ name: string }>; next_cursor: string | null } = (
        await call(carol, 'GET', `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
      ).json()
      expect(page.items.length).toBeLessThanOrEqual(2)
      names.push(...page.items.map((tag) => tag.name))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(names).toEqual(['Alpha', 'beta', 'Delta', 'epsilon', 'gamma'])
    expectReason(await call(carol, 'GET', '?cursor=forged'), 400, 'VALIDATION_FAILED')
  })

  it('counts the links carrying the tag that its owner can still see', async () => {
    const org = await createOrgWithRoles(t)
    const tag = await createTag(t, org.admin.token, 'Counted')
    await createLink(t, org.admin.token, { tag_ids: [tag.id] })
    await createLink(t, org.admin.token, { tag_ids: [tag.id], organization_id: org.id })
    expect((await call(org.admin, 'GET', `/${tag.id}`)).json().link_count).toBe(2)
    // Leaving the organization hides its links, and the count follows.
    const leave = await t.app.inject({
      method: 'DELETE',
      url: `/api/organizations/${org.id}/members/${org.admin.user.id}`,
      headers: bearer(org.admin.token),
    })
    expect(leave.statusCode).toBe(204)
    expect((await call(org.admin, 'GET', `/${tag.id}`)).json().link_count).toBe(1)
    expect(
      (await call(org.admin, 'GET', '')).json().items.find((x: { id: string }) => x.id === tag.id)
        .link_count,
    ).toBe(1)
  })
})
