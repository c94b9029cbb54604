/**
 * The organization boundary, mandatory and capped expiry, legacy tokens and the setting
 * that refuses them, credential changes that end tokens, and administrator rights that lapse with
 * the owner's.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
} from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import { newId } from '../../lib/ids.js'
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../../identity/token-format.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const get = (url: string, token: string) =>
  t.app.inject({ method: 'GET', url, headers: bearer(token) })
const DAY_MS = 86_400_000

async function setTokenPolicy(adminToken: string, body: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/api-tokens',
    headers: bearer(adminToken),
    payload: body,
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

async function insertLegacyToken(userId: string): Promise<{ id: string; token: string }> {
  const token = generateApiToken()
  const id = newId()
  await t.deps.db
    .insertInto('api_tokens')
    .values({
      id,
      user_id: userId,
      name: 'from before scopes',
      prefix: apiTokenPrefix(token),
      token_hash: hashApiToken(token),
      created_at: t.clock.now().toISOString(),
    })
    .execute()
  return { id, token }
}

describe('the organization boundary', () => {
  it('a token for organization A neither sees nor changes organization B, its links or its members (404 as for a non-member)', async () => {
    const owner = await createSignedInUser(t)
    const a = await createOrganization(t, owner.token, 'Org A')
    const b = await createOrganization(t, owner.token, 'Org B')
    const personal = await createLink(t, owner.token, { url: 'https://example.com/personal' })
    const linkA = await createLink(t, owner.token, {
      url: 'https://example.com/a',
      organization_id: a.id,
    })
    const linkB = await createLink(t, owner.token, {
      url: 'https://example.com/b',
      organization_id: b.id,
    })
    const { token } = await createApiTokenFor(t, owner.token, 'org A only', {
      permissions: ['links:write', 'organizations:write'],
      organization_boundary: 'selected',
      organization_ids: [a.id],
    })

    const listed = (await get('/api/links', token))
      .json()
      .items.map((link: { id: string }) => link.id)
    expect(listed.sort()).toEqual([personal.id, linkA.id].sort())
    expect((await get(`/api/links/${linkA.id}`, token)).statusCode).toBe(200)
    expect(
      (await get('/api/organizations', token)).json().items.map((org: { id: string }) => org.id),
    ).toEqual([a.id])
    expect((await get(`/api/organizations/${a.id}/members`, token)).statusCode).toBe(200)

    // Filtering on B finds nothing, as for a non-member.
    expect((await get(`/api/links?organization_id=${b.id}`, token)).json().items).toEqual([])
    const outside = [
      await get(`/api/links/${linkB.id}`, token),
      await get(`/api/links/slug-availability?slug=free&organization_id=${b.id}`, token),
      await t.app.inject({
        method: 'PATCH',
        url: `/api/links/${linkB.id}`,
        headers: bearer(token),
        payload: { title: 'mine now' },
      }),
      await t.app.inject({
        method: 'PATCH',
        url: `/api/links/${linkA.id}`,
        headers: bearer(token),
        payload: { organization_id: b.id },
      }),
      await t.app.inject({
        method: 'DELETE',
        url: `/api/links/${linkB.id}`,
        headers: bearer(token),
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: bearer(token),
        payload: { url: 'https://example.com/x', organization_id: b.id },
      }),
      await get(`/api/organizations/${b.id}`, token),
      await get(`/api/organizations/${b.id}/members`, token),
      await t.app.inject({
        method: 'PATCH',
        url: `/api/organizations/${b.id}`,
        headers: bearer(token),
        payload: { name: 'Renamed' },
      }),
      await t.app.inject({
        method: 'DELETE',
        url: `/api/organizations/${b.id}`,
        headers: bearer(token),
      }),
      await t.app.inject({
        method: 'POST',
        url: `/api/organizations/${b.id}/members`,
        headers: bearer(token),
        payload: { email: 'someone@example.com', role: 'member' },
      }),
    ]
    for (const response of outside) {
      expect(response.statusCode, response.body).toBe(404)
      expect(response.json().reason).toBe('NOT_FOUND')
    }
    // Nothing changed in B.
    const stillThere = await get(`/api/links/${linkB.id}`, owner.token)
    expect(stillThere.json()).toMatchObject({ id: linkB.id, title: null, organization_id: b.id })
    expect((await get(`/api/organizations/${b.id}`, owner.token)).json().name).toBe('Org B')
  })

  it('personal only: no organization at all; all: every organization of the owner', async () => {
    const owner = await createSignedInUser(t)
    const a = await createOrganization(t, owner.token)
    const linkA = await createLink(t, owner.token, {
      url: 'https://example.com/a',
      organization_id: a.id,
    })
    const personal = await createApiTokenFor(t, owner.token, 'personal', {
      permissions: ['links:read', 'organizations:read'],
      organization_boundary: 'personal',
    })
    expect((await get('/api/organizations', personal.token)).json().items).toEqual([])
    expect((await get(`/api/links/${linkA.id}`, personal.token)).statusCode).toBe(404)
    expect((await get(`/api/organizations/${a.id}`, personal.token)).statusCode).toBe(404)
    const all = await createApiTokenFor(t, owner.token, 'all', {
      permissions: ['links:read', 'organizations:read'],
      organization_boundary: 'all',
    })
    expect((await get(`/api/links/${linkA.id}`, all.token)).statusCode).toBe(200)
    expect((await get(`/api/organizations/${a.id}`, all.token)).statusCode).toBe(200)
  })

  it('a boundary names only organizations of the creator: another one is 404, `selected` without any is 400', async () => {
    const owner = await createSignedInUser(t)
    const stranger = await createSignedInUser(t)
    const theirs = await createOrganization(t, stranger.token)
    const create = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: bearer(owner.token),
        payload: { name: 'x', permissions: ['links:read'], ...payload },
      })
    const foreign = await create({
      organization_boundary: 'selected',
      organization_ids: [theirs.id],
    })
    expect(foreign.statusCode).toBe(404)
    const empty = await create({ organization_boundary: 'selected', organization_ids: [] })
    expect(empty.statusCode).toBe(400)
    expect(empty.json().details).toEqual([
      { field: 'organization_ids', message: expect.any(String), code: 'invalid' },
    ])
  })
})

describe('expiry', () => {
  it('is always set: 30 days by default, at most 365, and at most what the administrator allows', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const create = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: bearer(user.token),
        payload: { name: 'x', permissions: ['links:read'], ...payload },
      })

    const byDefault = (await create({})).json()
    expect(Date.parse(byDefault.expires_at) - Date.parse(byDefault.created_at)).toBe(30 * DAY_MS)
    expect((await create({ expires_in_days: 366 })).statusCode).toBe(400)
    expect((await create({ expires_in_days: 365 })).statusCode).toBe(201)
    const past = await create({
      expires_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
    })
    expect(past.json()).toMatchObject({
      reason: 'VALIDATION_FAILED',
      details: [{ field: 'expires_at' }],
    })
    const onDate = await create({
      expires_at: new Date(t.clock.now().getTime() + 3 * DAY_MS).toISOString(),
    })
    expect(onDate.statusCode).toBe(201)

    try {
      await setTokenPolicy(admin.token, { max_lifetime_days: 10 })
      expect((await get('/api/tokens/policy', user.token)).json()).toEqual({
        default_lifetime_days: 10,
        max_lifetime_days: 10,
        legacy_refused_from: null,
      })
      const tooLong = await create({ expires_in_days: 11 })
      expect(tooLong.statusCode).toBe(400)
      expect(tooLong.json().details[0]).toMatchObject({
        field: 'expires_in_days',
        message: expect.stringContaining('10'),
      })
      expect(
        (
          await create({
            expires_at: new Date(t.clock.now().getTime() + 11 * DAY_MS).toISOString(),
          })
        ).statusCode,
      ).toBe(400)
      const capped = (await create({})).json()
      expect(Date.parse(capped.expires_at) - Date.parse(capped.created_at)).toBe(10 * DAY_MS)
    } finally {
      await setTokenPolicy(admin.token, { max_lifetime_days: 365 })
    }
    // The generic settings endpoint does not write the section.
    const generic = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/api_tokens',
      headers: bearer(admin.token),
      payload: { value: {} },
    })
    expect(generic.statusCode).toBe(400)
  })
})

describe('legacy tokens', () => {
  it('are marked full access (legacy) in the list, keep working, and are refused from the date the administrator sets', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const legacy = await insertLegacyToken(user.user.id)
    const scoped = await createApiTokenFor(t, user.token, 'scoped', { permissions: ['links:read'] })
    const listed = (await get('/api/tokens', user.token)).json().items
    expect(listed.find((token: { id: string }) => token.id === legacy.id)).toMatchObject({
      legacy: true,
      permissions: [],
      organization_boundary: 'all',
      expires_at: null,
    })
    expect(listed.find((token: { id: string }) => token.id === scoped.id)).toMatchObject({
      legacy: false,
      permissions: ['links:read'],
    })
    expect((await get('/api/links', legacy.token)).statusCode).toBe(200)

    try {
      const tomorrow = new Date(t.clock.now().getTime() + DAY_MS).toISOString()
      expect(
        (await setTokenPolicy(admin.token, { refuse_legacy_from: tomorrow })).refuse_legacy_from,
      ).toBe(tomorrow)
      expect((await get('/api/links', legacy.token)).statusCode).toBe(200)
      await setTokenPolicy(admin.token, {
        refuse_legacy_from: new Date(t.clock.now().getTime() - 1000).toISOString(),
      })
      const refused = await get('/api/links', legacy.token)
      expect(refused.statusCode).toBe(401)
      expect(refused.json().reason).toBe('UNAUTHORIZED')
      expect((await get('/api/links', scoped.token)).statusCode).toBe(200)
      const audit = await t.deps.db
        .selectFrom('audit_events')
        .select(['action', 'metadata'])
        .where('action', '=', 'settings.api_tokens')
        .execute()
      expect(audit.length).toBeGreaterThanOrEqual(2)
    } finally {
      await setTokenPolicy(admin.token, { refuse_legacy_from: null })
    }
    expect((await get('/api/links', legacy.token)).statusCode).toBe(200)
  })

  it('only an administrator grants admin.* permissions', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(user.token),
      payload: { name: 'escalate', permissions: ['links:read', 'admin.users:read'] },
    })
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({
      reason: 'FORBIDDEN',
      message: expect.stringContaining('admin.users:read'),
    })
  })
})

describe('credential changes reach tokens', () => {
  it('a password change with "also revoke my API tokens" ends them; without it they stay', async () => {
    const user = await createSignedInUser(t)
    const kept = await createApiTokenFor(t, user.token, 'kept', { permissions: ['profile:read'] })
    const change = (from: string, to: string, revoke: boolean) =>
      t.app.inject({
        method: 'POST',
        url: '/api/users/me/password',
        headers: bearer(user.token),
        payload: { current_password: from, new_password: to, revoke_api_tokens: revoke },
      })
    expect((await change(DEFAULT_PASSWORD, 'a second sound passphrase 7', false)).statusCode).toBe(
      204,
    )
    expect((await get('/api/users/me', kept.token)).statusCode).toBe(200)
    expect(
      (await change('a second sound passphrase 7', 'a third sound passphrase 8', true)).statusCode,
    ).toBe(204)
    expect((await get('/api/users/me', kept.token)).statusCode).toBe(401)
  })

  it('turning on MFA with "also revoke my API tokens" ends them', async () => {
    const user = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, user.token, 'before MFA', {
      permissions: ['profile:read'],
    })
    await enableMfa(t, user, { revoke_api_tokens: true })
    expect((await get('/api/users/me', token)).statusCode).toBe(401)
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'mfa.enable')
      .where('target_id', '=', user.user.id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(audit.metadata)).toMatchObject({ tokens_revoked: 1 })
  })

  it("an administrator's MFA reset or password change ends the target's tokens; deleting the user removes them", async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const target = await createSignedInUser(t)
    const first = await createApiTokenFor(t, target.token, 'first', {
      permissions: ['profile:read'],
    })
    const reset = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${target.user.id}/mfa/reset`,
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD },
    })
    expect(reset.statusCode, reset.body).toBe(204)
    expect((await get('/api/users/me', first.token)).statusCode).toBe(401)

    const relogged = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: target.email, password: DEFAULT_PASSWORD },
    })
    const second = await createApiTokenFor(t, relogged.json().token, 'second', {
      permissions: ['profile:read'],
    })
    const setPassword = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${target.user.id}`,
      headers: bearer(admin.token),
      payload: { password: 'set by the administrator 9', current_password: DEFAULT_PASSWORD },
    })
    expect(setPassword.statusCode, setPassword.body).toBe(200)
    expect((await get('/api/users/me', second.token)).statusCode).toBe(401)

    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: target.email, password: 'set by the administrator 9' },
    })
    await createApiTokenFor(t, again.json().token, 'third', { permissions: ['profile:read'] })
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${target.user.id}`,
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD },
    })
    expect(deleted.statusCode, deleted.body).toBe(204)
    const rows = await t.deps.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', target.user.id)
      .execute()
    expect(rows).toEqual([])
  })

  it('demoting an administrator: their admin.* token answers 403 at the next request, their other permissions stay', async () => {
    const actor = await createSignedInUser(t, { isAdmin: true })
    const demoted = await createSignedInUser(t, { isAdmin: true })
    const { token } = await createApiTokenFor(t, demoted.token, 'admin work', {
      permissions: ['admin.users:read', 'profile:read'],
    })
    expect((await get('/api/admin/users', token)).statusCode).toBe(200)
    const demote = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${demoted.user.id}`,
      headers: bearer(actor.token),
      payload: { is_admin: false, current_password: DEFAULT_PASSWORD },
    })
    expect(demote.statusCode, demote.body).toBe(200)
    const refused = await get('/api/admin/users', token)
    expect(refused.statusCode).toBe(403)
    expect((await get('/api/users/me', token)).statusCode).toBe(200)
  })
})

describe('tag counts within the organization boundary', () => {
  it('count only the links a token may reach', async () => {
    const owner = await createSignedInUser(t)
    const a = await createOrganization(t, owner.token, 'Counted')
    const b = await createOrganization(t, owner.token, 'Not counted')
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/tags',
      headers: bearer(owner.token),
      payload: { name: 'reading' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const tag = created.json()
    for (const organization_id of [undefined, a.id, b.id]) {
      await createLink(t, owner.token, {
        url: `https://example.com/${organization_id ?? 'mine'}`,
        tag_ids: [tag.id],
        ...(organization_id && { organization_id }),
      })
    }
    const countWith = async (token: string) => {
      const listed = (await get('/api/tags', token))
        .json()
        .items.find((item: { id: string }) => item.id === tag.id)
      const single = (await get(`/api/tags/${tag.id}`, token)).json()
      expect(single.link_count).toBe(listed.link_count)
      return listed.link_count
    }
    const onlyA = await createApiTokenFor(t, owner.token, 'A', {
      permissions: ['links:read'],
      organization_boundary: 'selected',
      organization_ids: [a.id],
    })
    const personal = await createApiTokenFor(t, owner.token, 'personal', {
      permissions: ['links:read'],
      organization_boundary: 'personal',
    })
    const all = await createApiTokenFor(t, owner.token, 'all', {
      permissions: ['links:read'],
      organization_boundary: 'all',
    })
    expect(await countWith(owner.token)).toBe(3)
    expect(await countWith(all.token)).toBe(3)
    expect(await countWith(onlyA.token)).toBe(2)
    expect(await countWith(personal.token)).toBe(1)
    // A rename answers the tag with its count inside the same boundary.
    const onlyAWrites = await createApiTokenFor(t, owner.token, 'A writes', {
      permissions: ['links:write'],
      organization_boundary: 'selected',
      organization_ids: [a.id],
    })
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/tags/${tag.id}`,
      headers: bearer(onlyAWrites.token),
      payload: { name: 'reading list' },
    })
    expect(renamed.statusCode, renamed.body).toBe(200)
    expect(renamed.json().link_count).toBe(2)
  })
})
