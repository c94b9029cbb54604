import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
} from '../../../test/helpers/factories.js'
import { expectScimError, scimClient, SCIM_MEDIA } from '../../../test/helpers/scim.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', SCIM_RATE_LIMIT: '30' } })

describe('SCIM credentials (administration)', () => {
  it('are created by an administrator, shown once, listed without the secret, hashed at rest and audited', async () => {
    const client = await scimClient(t, 'Okta production')
    expect(client.token).toMatch(/^scim_[0-9A-Za-z]{43}$/)
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/scim/credentials',
      headers: bearer(client.adminToken),
    })
    expect(list.statusCode).toBe(200)
    expect(list.json().base_url).toBe('http://switchboard.test/scim/v2')
    const item = list.json().items.find((c: { id: string }) => c.id === client.credentialId)
    expect(item).toMatchObject({
      name: 'Okta production',
      prefix: client.token.slice(0, 12),
      last_used_at: null,
    })
    expect(list.body).not.toContain(client.token)
    const stored = await t.deps.db
      .selectFrom('scim_credentials')
      .select(['token_hash'])
      .where('id', '=', client.credentialId)
      .executeTakeFirstOrThrow()
    expect(stored.token_hash).not.toContain(client.token.slice(5))
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata'])
      .where('target_id', '=', client.credentialId)
      .execute()
    expect(audit.map((a) => a.action)).toEqual(['scim.credential_create'])
    expect(audit[0]!.metadata).not.toContain(client.token)
  })

  it('are for administrators only', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/scim/credentials',
      headers: bearer(user.token),
      payload: { current_password: DEFAULT_PASSWORD, name: 'x' },
    })
    expect(response.statusCode).toBe(403)
  })

  it('record their last use, and once revoked answer 401 at the next request', async () => {
    const client = await scimClient(t)
    expect((await client.request('GET', '/ServiceProviderConfig')).statusCode).toBe(200)
    // Written after the answer: waited for, not slept on (a loaded machine takes longer).
    const lastUsed = async () =>
      (
        await t.deps.db
          .selectFrom('scim_credentials')
          .select('last_used_at')
          .where('id', '=', client.credentialId)
          .executeTakeFirstOrThrow()
      ).last_used_at
    await expect.poll(lastUsed, { timeout: 5000 }).not.toBeNull()
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/scim/credentials/${client.credentialId}`,
      headers: bearer(client.adminToken),
    })
    expect(revoke.statusCode).toBe(204)
    expectScimError(await client.request('GET', '/Users'), 401)
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/scim/credentials/${client.credentialId}`,
      headers: bearer(client.adminToken),
    })
    expect(again.statusCode).toBe(404)
  })
})

describe('SCIM credentials created in a burst (concurrent requests)', () => {
  const create = (token: string, name: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/scim/credentials',
      headers: bearer(token),
      payload: { current_password: DEFAULT_PASSWORD, name },
    })

  it('give each 201 its own credential and secret, shown once, and hold the 10-per-15-minutes limit', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const names = Array.from({ length: 14 }, (_, i) => `Burst ${i}`)
    const responses = await Promise.all(names.map((name) => create(admin.token, name)))
    const created = responses.filter((r) => r.statusCode === 201).map((r) => r.json())
    const limited = responses.filter((r) => r.statusCode === 429)
    expect(created).toHaveLength(10)
    expect(limited).toHaveLength(4)
    for (const response of limited) expect(response.json().reason).toBe('RATE_LIMITED')
    // No duplicate: distinct ids, secrets and names; no lost one: every 201 is a stored, working
    // credential.
    expect(new Set(created.map((c) => c.id)).size).toBe(10)
    expect(new Set(created.map((c) => c.token)).size).toBe(10)
    expect(new Set(created.map((c) => c.name)).size).toBe(10)
    const stored = await t.deps.db
      .selectFrom('scim_credentials')
      .select(['id', 'name', 'revoked_at'])
      .where('created_by', '=', admin.user.id)
      .execute()
    expect(stored.map((row) => row.id).sort()).toEqual(created.map((c) => c.id).sort())
    for (const c of created) {
      const answer = await t.app.inject({
        method: 'GET',
        url: '/scim/v2/ServiceProviderConfig',
        headers: bearer(c.token),
      })
      expect(answer.statusCode, c.name).toBe(200)
    }
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select('target_id')
      .where('action', '=', 'scim.credential_create')
      .where(
        'target_id',
        'in',
        created.map((c) => c.id),
      )
      .execute()
    expect(audit.map((a) => a.target_id).sort()).toEqual(created.map((c) => c.id).sort())
    // Shown once: never again in the list.
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/scim/credentials',
      headers: bearer(admin.token),
    })
    for (const c of created) {
      expect(list.body).not.toContain(c.token)
      expect(list.json().items.filter((item: { id: string }) => item.id === c.id)).toHaveLength(1)
    }
  })

  it('create one credential for one name when the form is sent several times at once (409 for the others)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => create(admin.token, 'Entra production')),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409])
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expect(response.json().reason).toBe('ALREADY_EXISTS')
      expect(response.body).not.toMatch(/scim_[0-9A-Za-z]{43}/)
    }
    const live = await t.deps.db
      .selectFrom('scim_credentials')
      .select('id')
      .where('name', '=', 'Entra production')
      .where('revoked_at', 'is', null)
      .execute()
    expect(live.map((row) => row.id)).toEqual([
      responses.find((r) => r.statusCode === 201)!.json().id,
    ])
    // Once revoked, the name is free again (a rotated credential keeps its provider's name).
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/scim/credentials/${live[0]!.id}`,
      headers: bearer(admin.token),
    })
    expect(revoke.statusCode).toBe(204)
    expect((await create(admin.token, 'Entra production')).statusCode).toBe(201)
  })
})

describe('the /scim/v2 boundary', () => {
  it('refuses a request without credentials, with a session, or with a personal API token (401 SCIM error)', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const personal = await createApiTokenFor(t, admin.token)
    for (const headers of [
      {},
      bearer(admin.token),
      bearer(personal.token),
      bearer('scim_made-up'),
    ]) {
      const response = await t.app.inject({ method: 'GET', url: '/scim/v2/Users', headers })
      expectScimError(response, 401)
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/)
    }
  })

  it('does not accept the SCIM credential anywhere else', async () => {
    const client = await scimClient(t)
    for (const url of ['/api/users/me', '/api/admin/users', '/api/admin/scim/credentials']) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(client.token) })
      expect(response.statusCode, url).toBe(401)
      expect(response.json().reason).toBe('UNAUTHORIZED')
    }
  })

  it('answers application/scim+json and SCIM errors for unknown paths, malformed JSON and unsupported media types', async () => {
    const client = await scimClient(t)
    const config = await client.request('GET', '/ServiceProviderConfig')
    expect(config.headers['content-type']).toMatch(/^application\/scim\+json/)
    expectScimError(await client.request('GET', '/Nothing'), 404)
    expectScimError(await client.request('GET', '/Users/no-such-id'), 404)
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { ...bearer(client.token), 'content-type': SCIM_MEDIA },
      payload: '{"userName":',
    })
    expectScimError(malformed, 400, 'invalidSyntax')
    const asJson = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { ...bearer(client.token), 'content-type': 'application/json' },
      payload: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'json-client@example.com',
      }),
    })
    expect(asJson.statusCode).toBe(201)
    const text = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { ...bearer(client.token), 'content-type': 'text/xml' },
      payload: '<user/>',
    })
    expectScimError(text, 415)
  })

  it('is rate limited per credential (429 SCIM error with Retry-After), without touching another credential', async () => {
    const first = await scimClient(t)
    const second = await scimClient(t)
    const statuses: number[] = []
    for (let i = 0; i < 31; i++)
      statuses.push((await first.request('GET', '/ServiceProviderConfig')).statusCode)
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
    const limited = await first.request('GET', '/ServiceProviderConfig')
    expectScimError(limited, 429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect((await second.request('GET', '/ServiceProviderConfig')).statusCode).toBe(200)
  })
})
