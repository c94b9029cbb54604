/** /api/oidc-providers: shapes, validation and reasons, the write-only secret, delete. */
import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { decrypt } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  type SignedIn,
  type TestUser,
  withAdminProof,
} from '../../../test/helpers/factories.js'
import {
  OIDC_CLIENT_SECRET,
  OTHER_OIDC_CLIENT_SECRET,
  scanResponsesForSecrets,
} from '../../../test/helpers/secret-scan.js'
import { RESERVED_PROVIDER_KEYS } from './providers.schemas.js'

const t = useTestApp()
scanResponsesForSecrets(t, [OIDC_CLIENT_SECRET, OTHER_OIDC_CLIENT_SECRET])

let admin: TestUser & SignedIn
let member: TestUser & SignedIn
beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  member = await createSignedInUser(t)
})

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
const send = (method: Method, url: string, payload?: unknown, token = admin.token) =>
  t.app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload !== undefined && { payload: withAdminProof(payload as object, url) }),
  })

const valid = (fields: Record<string, unknown> = {}) => ({
  provider_key: `idp-${randomBytes(3).toString('hex')}`,
  name: 'Example IdP',
  issuer_url: 'https://idp.example.com',
  client_id: 'switchboard',
  client_secret: OIDC_CLIENT_SECRET,
  ...fields,
})

// A provider view from the wire; the tests assert its fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function create(fields: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await send('POST', '/api/oidc-providers', valid(fields))
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}

const storedSecret = async (id: string) =>
  (
    await t.deps.db
      .selectFrom('oidc_providers')
      .select('client_secret_encrypted')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).client_secret_encrypted

// Any response with the error envelope; the tests assert its details.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fieldsOf = (response: { json(): any }) =>
  response
    .json()
    .details.map((d: { field: string }) => d.field)
    .sort()

describe('who may use /api/oidc-providers', () => {
  const routes: Array<[Method, string]> = [
    ['GET', '/api/oidc-providers'],
    ['POST', '/api/oidc-providers'],
    ['GET', '/api/oidc-providers/x'],
    ['PATCH', '/api/oidc-providers/x'],
    ['PUT', '/api/oidc-providers/x'],
    ['DELETE', '/api/oidc-providers/x'],
  ]

  it('401 without credentials, 403 FORBIDDEN for a non-administrator', async () => {
    for (const [method, url] of routes) {
      const anonymous = await t.app.inject({ method, url })
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401)
      expect(anonymous.json().reason).toBe('UNAUTHORIZED')
      const forbidden = await send(
        method,
        url,
        method === 'GET' || method === 'DELETE' ? undefined : valid(),
        member.token,
      )
      expect(forbidden.statusCode, `${method} ${url}`).toBe(403)
      expect(forbidden.json().reason).toBe('FORBIDDEN')
    }
  })
})

describe('POST /api/oidc-providers', () => {
  it('201 with exactly the fields of docs/API.md#identity-providers; defaults; callback_url from PUBLIC_URL', async () => {
    const body = valid({ provider_key: 'acme' })
    const response = await send('POST', '/api/oidc-providers', body)
    expect(response.statusCode).toBe(201)
    const provider = response.json()
    expect(provider).toEqual({
      id: expect.any(String),
      provider_key: 'acme',
      name: 'Example IdP',
      issuer_url: 'https://idp.example.com',
      client_id: 'switchboard',
      client_secret_set: true,
      scopes: ['openid', 'email', 'profile'],
      auto_create_users: false,
      default_role: 'user',
      enabled: true,
      trust_email: false,
      trusts_mfa_amr: false,
      callback_url: 'http://switchboard.test/api/auth/oidc/acme/callback',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: provider.created_at,
    })
  })

  it('takes every writable field; openid is added first when missing, duplicates dropped; names are trimmed', async () => {
    const provider = await create({
      name: '  Corporate SSO  ',
      scopes: ['email', 'groups', 'email', 'offline_access'],
      auto_create_users: true,
      default_role: 'admin',
      enabled: false,
    })
    expect(provider).toMatchObject({
      name: 'Corporate SSO',
      scopes: ['openid', 'email', 'groups', 'offline_access'],
      auto_create_users: true,
      default_role: 'admin',
      enabled: false,
    })
    expect((await create({ scopes: [] })).scopes).toEqual(['openid'])
    expect((await create({ scopes: ['profile', 'openid'] })).scopes).toEqual(['openid', 'profile'])
  })

  it('stores the client secret encrypted, bound to its row; client_secret null is a public client', async () => {
    const provider = await create()
    const stored = await storedSecret(provider.id)
    expect(stored).toMatch(/^v1\./)
    expect(stored).not.toContain(OIDC_CLIENT_SECRET)
    expect(
      decrypt(t.deps.secrets.encryptionKey, stored!, `oidc_providers.client_secret:${provider.id}`),
    ).toBe(OIDC_CLIENT_SECRET)
    const other = await create()
    expect(() =>
      decrypt(t.deps.secrets.encryptionKey, stored!, `oidc_providers.client_secret:${other.id}`),
    ).toThrow()

    const publicClient = await create({ client_secret: null })
    expect(publicClient.client_secret_set).toBe(false)
    expect(await storedSecret(publicClient.id)).toBeNull()
  })

  it('400 VALIDATION_FAILED naming every missing field, and every unknown one', async () => {
    const response = await send('POST', '/api/oidc-providers', { client_secret_set: true })
    expect(response.statusCode).toBe(400)
    expect(response.json().reason).toBe('VALIDATION_FAILED')
    expect(fieldsOf(response)).toEqual([
      'client_id',
      'client_secret',
      'client_secret_set',
      'issuer_url',
      'name',
      'provider_key',
    ])
  })

  it('400 on provider_key for a key off the pattern', async () => {
    for (const key of ['Acme', '-acme', '_acme', 'ac me', 'acmé', 'a'.repeat(51), '', 'a/b']) {
      const response = await send('POST', '/api/oidc-providers', valid({ provider_key: key }))
      expect(response.statusCode, key).toBe(400)
      expect(response.json().details, key).toEqual([
        {
          field: 'provider_key',
          message:
            'must be 1–50 lower-case letters, digits, _ or -, starting with a letter or digit',
          code: 'pattern',
        },
      ])
    }
    for (const key of ['a', '0', 'a'.repeat(50), 'my_idp-2'])
      expect(
        (await send('POST', '/api/oidc-providers', valid({ provider_key: key }))).statusCode,
        key,
      ).toBe(201)
  })

  it('400 on provider_key for each reserved name, on create and on update', async () => {
    const existing = await create()
    for (const key of RESERVED_PROVIDER_KEYS) {
      for (const response of [
        await send('POST', '/api/oidc-providers', valid({ provider_key: key })),
        await send('PATCH', `/api/oidc-providers/${existing.id}`, { provider_key: key }),
      ]) {
        expect(response.statusCode, key).toBe(400)
        expect(response.json()).toMatchObject({
          reason: 'VALIDATION_FAILED',
          details: [
            {
              field: 'provider_key',
              message:
                'is reserved (providers, setup, login, logout, csrf, mfa, oidc, me, callback)',
              code: 'invalid',
            },
          ],
        })
      }
    }
    expect(RESERVED_PROVIDER_KEYS).toEqual([
      'providers',
      'setup',
      'login',
      'logout',
      'csrf',
      'mfa',
      'oidc',
      'me',
      'callback',
    ])
  })

  it('issuer_url: https, or http on a loopback host only; no credentials, query or fragment', async () => {
    const refused: Array<[string, string]> = [
      [
        'http://idp.example.com',
        'must be an https URL (http only for 127.0.0.1, ::1 or localhost)',
      ],
      ['http://10.0.0.1:8080', 'must be an https URL (http only for 127.0.0.1, ::1 or localhost)'],
      [
        'http://127.0.0.1.example.com',
        'must be an https URL (http only for 127.0.0.1, ::1 or localhost)',
      ],
      ['ftp://idp.example.com', 'must be an https URL (http only for 127.0.0.1, ::1 or localhost)'],
      ['idp.example.com', 'must be an https URL'],
      ['https://user:pw@idp.example.com', 'must not contain credentials'],
      ['https://idp.example.com/?tenant=1', 'must not have a query or fragment'],
      ['https://idp.example.com/#x', 'must not have a query or fragment'],
    ]
    for (const [url, message] of refused) {
      const response = await send('POST', '/api/oidc-providers', valid({ issuer_url: url }))
      expect(response.statusCode, url).toBe(400)
      // An address that is not https is a format problem (a client says what to enter).
      const kind = message.startsWith('must be an https URL')
        ? { code: 'format', format: 'uri' }
        : { code: 'invalid' }
      expect(response.json().details, url).toEqual([{ field: 'issuer_url', message, ...kind }])
    }
    for (const url of [
      'http://127.0.0.1:9000',
      'http://[::1]:9000/realms/x',
      'http://localhost:8080',
      'https://login.example.com/tenant/v2.0/',
    ]) {
      const response = await send('POST', '/api/oidc-providers', valid({ issuer_url: ` ${url} ` }))
      expect(response.statusCode, url).toBe(201)
      expect(response.json().issuer_url).toBe(url)
    }
  })

  it('reports the reserved key and the issuer together, and every schema problem at once', async () => {
    const both = await send(
      'POST',
      '/api/oidc-providers',
      valid({ provider_key: 'login', issuer_url: 'http://idp.example.com' }),
    )
    expect(fieldsOf(both)).toEqual(['issuer_url', 'provider_key'])
    const many = await send('POST', '/api/oidc-providers', {
      ...valid(),
      name: ' ',
      client_id: 'a\nb',
      client_secret: '',
      scopes: ['has space', 'ok'],
      default_role: 'owner',
      auto_create_users: 'yes',
      enabled: 1,
    })
    expect(many.statusCode).toBe(400)
    expect(fieldsOf(many)).toEqual([
      'auto_create_users',
      'client_id',
      'client_secret',
      'default_role',
      'enabled',
      'name',
      'scopes.0',
    ])
    const tooMany = await send(
      'POST',
      '/api/oidc-providers',
      valid({ scopes: Array.from({ length: 21 }, (_, i) => `s${i}`) }),
    )
    expect(fieldsOf(tooMany)).toEqual(['scopes'])
  })

  it("names a reserved key or a bad issuer before asking for the administrator's proof", async () => {
    const body = valid({ provider_key: 'login', issuer_url: 'kein url' })
    // Without the proof: the form's mistakes come first, so nobody types a password for nothing.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/oidc-providers',
      headers: bearer(admin.token),
      payload: body,
    })
    expect(created.statusCode, created.body).toBe(400)
    expect(fieldsOf(created)).toEqual(['issuer_url', 'provider_key'])
    const existing = await create()
    const updated = await t.app.inject({
      method: 'PATCH',
      url: `/api/oidc-providers/${existing.id}`,
      headers: bearer(admin.token),
      payload: { issuer_url: 'kein url' },
    })
    expect(updated.statusCode, updated.body).toBe(400)
    expect(fieldsOf(updated)).toEqual(['issuer_url'])
    // A valid change of issuer still asks for it.
    const unproven = await t.app.inject({
      method: 'PATCH',
      url: `/api/oidc-providers/${existing.id}`,
      headers: bearer(admin.token),
      payload: { issuer_url: 'https://other.example.com', client_secret: OIDC_CLIENT_SECRET },
    })
    expect(unproven.json().reason).toBe('PASSWORD_REQUIRED')
  })

  it('409 ALREADY_EXISTS with details "provider_key" when the key is taken', async () => {
    const first = await create()
    const response = await send(
      'POST',
      '/api/oidc-providers',
      valid({ provider_key: first.provider_key }),
    )
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      reason: 'ALREADY_EXISTS',
      details: 'provider_key',
      code: 409,
      error: 'Conflict',
    })
  })
})

describe('GET /api/oidc-providers and /{id}', () => {
  it('lists by provider_key in pages; a foreign cursor is a 400', async () => {
    const all = await send('GET', '/api/oidc-providers?limit=200')
    expect(all.statusCode).toBe(200)
    const keys = all.json().items.map((p: { provider_key: string }) => p.provider_key)
    expect(keys.length).toBeGreaterThan(5)
    expect(keys).toEqual([...keys].sort((a: string, b: string) => (a < b ? -1 : 1)))
    expect(all.json().next_cursor).toBeNull()

    const first = (await send('GET', '/api/oidc-providers?limit=2')).json()
    expect(first.items.map((p: { provider_key: string }) => p.provider_key)).toEqual(
      keys.slice(0, 2),
    )
    const second = (
      await send('GET', `/api/oidc-providers?limit=2&cursor=${first.next_cursor}`)
    ).json()
    expect(second.items.map((p: { provider_key: string }) => p.provider_key)).toEqual(
      keys.slice(2, 4),
    )
    const bad = await send('GET', '/api/oidc-providers?cursor=nope')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().details).toEqual([
      { field: 'cursor', message: 'is not a cursor returned by this endpoint', code: 'invalid' },
    ])
  })

  it('reads one; an unknown or malformed id is 404 NOT_FOUND', async () => {
    const provider = await create()
    const response = await send('GET', `/api/oidc-providers/${provider.id}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(provider)
    for (const id of ['01900000-0000-7000-8000-000000000000', 'not-an-id', "x' or '1'='1"]) {
      const missing = await send('GET', `/api/oidc-providers/${encodeURIComponent(id)}`)
      expect(missing.statusCode, id).toBe(404)
      expect(missing.json().reason).toBe('NOT_FOUND')
    }
  })
})

describe('PATCH and PUT /api/oidc-providers/{id}', () => {
  it('changes only what is sent and answers the whole provider; the secret is kept when omitted', async () => {
    const provider = await create()
    const before = await storedSecret(provider.id)
    t.clock.advance(1)
    for (const method of ['PATCH', 'PUT'] as const) {
      const response = await send(method, `/api/oidc-providers/${provider.id}`, {
        name: `Renamed by ${method}`,
        enabled: false,
      })
      expect(response.statusCode).toBe(200)
      expect(response.json()).toEqual({
        ...provider,
        name: `Renamed by ${method}`,
        enabled: false,
        updated_at: expect.any(String),
      })
      expect(response.json().updated_at > provider.updated_at).toBe(true)
    }
    expect(await storedSecret(provider.id)).toBe(before)
  })

  it('replaces the secret when sent, clears it with null', async () => {
    const provider = await create()
    const before = await storedSecret(provider.id)
    const replaced = await send('PATCH', `/api/oidc-providers/${provider.id}`, {
      client_secret: OTHER_OIDC_CLIENT_SECRET,
    })
    expect(replaced.json().client_secret_set).toBe(true)
    const after = await storedSecret(provider.id)
    expect(after).not.toBe(before)
    expect(
      decrypt(t.deps.secrets.encryptionKey, after!, `oidc_providers.client_secret:${provider.id}`),
    ).toBe(OTHER_OIDC_CLIENT_SECRET)
    const cleared = await send('PUT', `/api/oidc-providers/${provider.id}`, { client_secret: null })
    expect(cleared.json().client_secret_set).toBe(false)
    expect(await storedSecret(provider.id)).toBeNull()
  })

  it('normalizes scopes; a renamed key moves the callback URL and the linked users along', async () => {
    const provider = await create()
    const linked = await createUser(t)
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: provider.provider_key, oidc_sub: 'sub-1' })
      .where('id', '=', linked.user.id)
      .execute()
    const response = await send('PATCH', `/api/oidc-providers/${provider.id}`, {
      provider_key: 'renamed-idp',
      scopes: ['email'],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      provider_key: 'renamed-idp',
      scopes: ['openid', 'email'],
      callback_url: 'http://switchboard.test/api/auth/oidc/renamed-idp/callback',
    })
    const user = await t.deps.db
      .selectFrom('users')
      .select(['oidc_provider', 'oidc_sub'])
      .where('id', '=', linked.user.id)
      .executeTakeFirstOrThrow()
    expect(user).toEqual({ oidc_provider: 'renamed-idp', oidc_sub: 'sub-1' })
  })

  it('400 for an empty body, bad fields or unknown ones; 409 for a taken key; 404 for an unknown id', async () => {
    const provider = await create()
    const other = await create()
    const empty = await send('PATCH', `/api/oidc-providers/${provider.id}`, {})
    expect(empty.statusCode).toBe(400)
    expect(empty.json().details).toEqual([
      { field: 'body', message: 'must contain at least one field', code: 'too_few_fields' },
    ])
    const bad = await send('PUT', `/api/oidc-providers/${provider.id}`, {
      issuer_url: 'http://idp.example.com',
      id: 'x',
      client_secret_set: false,
    })
    expect(fieldsOf(bad)).toEqual(['client_secret_set', 'id'])
    const issuer = await send('PATCH', `/api/oidc-providers/${provider.id}`, {
      issuer_url: 'http://idp.example.com',
    })
    expect(fieldsOf(issuer)).toEqual(['issuer_url'])
    const taken = await send('PATCH', `/api/oidc-providers/${provider.id}`, {
      provider_key: other.provider_key,
    })
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toMatchObject({ reason: 'ALREADY_EXISTS', details: 'provider_key' })
    expect((await send('GET', `/api/oidc-providers/${provider.id}`)).json()).toEqual(provider)
    const missing = await send(
      'PATCH',
      '/api/oidc-providers/01900000-0000-7000-8000-000000000000',
      { name: 'x' },
    )
    expect(missing.statusCode).toBe(404)
    expect(missing.json().reason).toBe('NOT_FOUND')
  })
})

describe('DELETE /api/oidc-providers/{id}', () => {
  it('204 with no body, then 404; its users keep their accounts, unlinked', async () => {
    const provider = await create()
    const linked = await createUser(t)
    await t.deps.db
      .updateTable('users')
      .set({ oidc_provider: provider.provider_key, oidc_sub: 'sub-2' })
      .where('id', '=', linked.user.id)
      .execute()

    const response = await send('DELETE', `/api/oidc-providers/${provider.id}`)
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect((await send('DELETE', `/api/oidc-providers/${provider.id}`)).statusCode).toBe(404)
    expect((await send('GET', `/api/oidc-providers/${provider.id}`)).statusCode).toBe(404)
    const user = await t.deps.db
      .selectFrom('users')
      .select(['email', 'oidc_provider', 'oidc_sub'])
      .where('id', '=', linked.user.id)
      .executeTakeFirstOrThrow()
    expect(user).toEqual({ email: linked.email, oidc_provider: null, oidc_sub: null })

    const event = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'oidc_provider.delete')
      .where('target_id', '=', provider.id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(event.metadata)).toEqual({
      provider_key: provider.provider_key,
      users_unlinked: 1,
    })
  })
})

describe('audit', () => {
  it('records create and update with the key and field names, never the secret', async () => {
    const provider = await create()
    await send('PATCH', `/api/oidc-providers/${provider.id}`, {
      client_secret: OTHER_OIDC_CLIENT_SECRET,
      name: 'x',
    })
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'actor_id', 'metadata'])
      .where('target_id', '=', provider.id)
      .orderBy('at')
      .execute()
    expect(events.map((e) => [e.action, e.actor_id, JSON.parse(e.metadata)])).toEqual([
      ['oidc_provider.create', admin.user.id, { provider_key: provider.provider_key }],
      [
        'oidc_provider.update',
        admin.user.id,
        { provider_key: provider.provider_key, fields: ['client_secret', 'name'] },
      ],
    ])
    const everything = JSON.stringify(
      await t.deps.db.selectFrom('audit_events').selectAll().execute(),
    )
    expect(everything).not.toContain(OIDC_CLIENT_SECRET)
    expect(everything).not.toContain(OTHER_OIDC_CLIENT_SECRET)
  })
})
