/**
 * Generic settings (docs/API.md#settings): shapes, key rules, limits, reserved keys, route order.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  withAdminProof,
} from '../../../test/helpers/factories.js'
import {
  scanResponsesForSecrets,
  SMTP_PASSWORD,
  AI_API_KEY,
} from '../../../test/helpers/secret-scan.js'

const t = useTestApp()
scanResponsesForSecrets(t)

let adminToken = ''
const admin = async () => (adminToken ||= (await createSignedInUser(t, { isAdmin: true })).token)
const call = async (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: bearer(await admin()),
    ...(payload !== undefined && { payload: withAdminProof(payload as object, url) }),
  })

describe('access', () => {
  it('needs credentials (401) and an administrator (403 FORBIDDEN) on every settings route', async () => {
    const member = await createSignedInUser(t)
    const routes: Array<[string, string]> = [
      ['GET', '/api/admin/settings'],
      ['GET', '/api/admin/settings/site.name'],
      ['PUT', '/api/admin/settings/site.name'],
      ['DELETE', '/api/admin/settings/site.name'],
      ['GET', '/api/admin/settings/smtp'],
      ['PUT', '/api/admin/settings/smtp'],
      ['POST', '/api/admin/settings/smtp/test'],
      ['GET', '/api/admin/settings/ai'],
      ['PUT', '/api/admin/settings/ai'],
      ['GET', '/api/admin/settings/ai/models'],
    ]
    for (const [method, url] of routes) {
      const anonymous = await t.app.inject({
        method: method as 'GET',
        url,
        payload: method === 'GET' ? undefined : { value: 1 },
      })
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401)
      const forbidden = await t.app.inject({
        method: method as 'GET',
        url,
        headers: bearer(member.token),
        payload: method === 'GET' ? undefined : { value: 1 },
      })
      expect(forbidden.statusCode, `${method} ${url}`).toBe(403)
      expect(forbidden.json().reason).toBe('FORBIDDEN')
    }
  })
})

describe('PUT, GET and DELETE /api/admin/settings/{key}', () => {
  it('stores any JSON value and returns the Setting', async () => {
    const values: unknown[] = [
      'Acme',
      42,
      1.5,
      true,
      null,
      [1, 'two', { three: 3 }],
      { nested: { list: [], flag: false } },
      '',
      // Stored as JSON text, escaped: NUL and lone surrogates (which PostgreSQL text could not hold
      // raw) survive.
      'nul \u0000 and lone \ud800 surrogate',
      { 'ключ ключ': '🙂', 'a.b': { '': 0 } },
    ]
    for (const [i, value] of values.entries()) {
      const key = `sample.value_${i}`
      const put = await call('PUT', `/api/admin/settings/${key}`, { value })
      expect(put.statusCode).toBe(200)
      expect(put.json()).toEqual({
        key,
        value,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      })
      const get = await call('GET', `/api/admin/settings/${key}`)
      expect(get.statusCode).toBe(200)
      expect(get.json()).toEqual(put.json())
    }
  })

  it('replaces the value of an existing key and moves updated_at', async () => {
    const first = (await call('PUT', '/api/admin/settings/site.title', { value: 'One' })).json()
    t.clock.advance(5)
    const second = await call('PUT', '/api/admin/settings/site.title', { value: { text: 'Two' } })
    expect(second.statusCode).toBe(200)
    expect(second.json().value).toEqual({ text: 'Two' })
    expect(Date.parse(second.json().updated_at)).toBeGreaterThan(Date.parse(first.updated_at))
    expect((await call('GET', '/api/admin/settings/site.title')).json().value).toEqual({
      text: 'Two',
    })
  })

  it('needs a value (null allowed) and nothing else in the body', async () => {
    const missing = await call('PUT', '/api/admin/settings/site.x', {})
    expect(missing.statusCode).toBe(400)
    expect(missing.json().details).toEqual([
      { field: 'value', message: 'is required', code: 'required' },
    ])
    const extra = await call('PUT', '/api/admin/settings/site.x', { value: 1, note: 'no' })
    expect(extra.statusCode).toBe(400)
    expect(extra.json().details).toEqual([
      { field: 'note', message: 'is not an accepted field', code: 'unknown_field' },
    ])
    expect((await call('PUT', '/api/admin/settings/site.x', { value: null })).json()).toMatchObject(
      { key: 'site.x', value: null },
    )
  })

  it('validates the key pattern on write: ^[a-z][a-z0-9_.]{0,99}$', async () => {
    for (const key of [
      'Upper',
      '1digit',
      '_under',
      'with-dash',
      'sp%20ace',
      'a'.repeat(101),
      'caf%C3%A9',
    ]) {
      const response = await call('PUT', `/api/admin/settings/${key}`, { value: 1 })
      expect(response.statusCode, key).toBe(400)
      expect(response.json()).toMatchObject({
        reason: 'VALIDATION_FAILED',
        details: [{ field: 'key' }],
      })
    }
    for (const key of ['a', 'a'.repeat(100), 'x.y_z.0'])
      expect((await call('PUT', `/api/admin/settings/${key}`, { value: 1 })).statusCode, key).toBe(
        200,
      )
  })

  it('refuses values over 16 KiB serialized, and absurdly deep ones, with a 400 on value', async () => {
    const atLimit = 'x'.repeat(16 * 1024 - 2) // plus the two quotes: exactly 16 KiB
    expect((await call('PUT', '/api/admin/settings/big.ok', { value: atLimit })).statusCode).toBe(
      200,
    )
    const over = await call('PUT', '/api/admin/settings/big.over', { value: `${atLimit}x` })
    expect(over.statusCode).toBe(400)
    expect(over.json().details).toEqual([
      {
        field: 'value',
        message: 'must be at most 16 KiB when serialized as JSON',
        code: 'invalid',
      },
    ])
    // Counted in UTF-8 bytes: 6000 euro signs are 18000 bytes though only 6000 characters.
    expect(
      (await call('PUT', '/api/admin/settings/big.euro', { value: '€'.repeat(6000) })).statusCode,
    ).toBe(400)

    const deep = '['.repeat(30_000) + ']'.repeat(30_000)
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/big.deep',
      headers: { ...bearer(await admin()), 'content-type': 'application/json' },
      payload: `{"value":${deep}}`,
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details[0].field).toBe('value')
    expect((await call('GET', '/api/admin/settings/big.deep')).statusCode).toBe(404)
  })

  it('answers 404 for an unknown key, and for a key that cannot exist', async () => {
    for (const key of ['never.set', 'NOT_A_KEY', 'x'.repeat(150)]) {
      const response = await call('GET', `/api/admin/settings/${key}`)
      expect(response.statusCode).toBe(404)
      expect(response.json().reason).toBe('NOT_FOUND')
    }
  })

  it('deletes: 204, then 404', async () => {
    await call('PUT', '/api/admin/settings/temp.key', { value: 'soon gone' })
    const deleted = await call('DELETE', '/api/admin/settings/temp.key')
    expect(deleted.statusCode).toBe(204)
    expect(deleted.body).toBe('')
    expect((await call('GET', '/api/admin/settings/temp.key')).statusCode).toBe(404)
    const again = await call('DELETE', '/api/admin/settings/temp.key')
    expect(again.statusCode).toBe(404)
    expect(again.json().reason).toBe('NOT_FOUND')
  })

  const auditOf = (key: string) =>
    t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'target_type', 'target_id', 'metadata', 'actor_id'])
      .where('target_id', '=', key)
      .orderBy('at')
      .execute()

  it('audits writes and deletes with the old and the new value', async () => {
    await call('PUT', '/api/admin/settings/audit.me', { value: { limit: 5 } })
    t.clock.advance(1)
    await call('PUT', '/api/admin/settings/audit.me', { value: { limit: 7 } })
    t.clock.advance(1)
    await call('DELETE', '/api/admin/settings/audit.me')
    const events = await auditOf('audit.me')
    expect(events.map((e) => e.action)).toEqual([
      'settings.update',
      'settings.update',
      'settings.delete',
    ])
    expect(events.every((e) => e.target_type === 'setting' && e.actor_id !== null)).toBe(true)
    expect(events.map((e) => JSON.parse(e.metadata))).toEqual([
      { old_value: null, new_value: { limit: 5 } },
      { old_value: { limit: 5 }, new_value: { limit: 7 } },
      { old_value: { limit: 7 }, new_value: null },
    ])
  })

  it('never records the value of a key named like a secret', async () => {
    await call('PUT', '/api/admin/settings/webhook.secret', { value: 'confidential-looking text' })
    await call('PUT', '/api/admin/settings/webhook.secret', { value: 'confidential again' })
    await call('DELETE', '/api/admin/settings/webhook.secret')
    const events = await auditOf('webhook.secret')
    expect(events).toHaveLength(3)
    expect(events.map((e) => JSON.parse(e.metadata))).toEqual([
      { value_redacted: true },
      { value_redacted: true },
      { value_redacted: true },
    ])
    expect(JSON.stringify(events)).not.toContain('confidential')
  })
})

describe('reserved keys of the typed sections', () => {
  it('cannot be written or deleted through the generic endpoint (400 on key)', async () => {
    for (const key of [
      'smtp',
      'ai',
      'billing',
      'smtp.host',
      'ai.api_key',
      'billing.plans',
      'smtp.password',
    ]) {
      const put = await call('PUT', `/api/admin/settings/${key}`, { value: 'x' })
      expect(put.statusCode, `PUT ${key}`).toBe(400)
      // `smtp` and `ai` reach their typed sections, which do not accept a `value` field.
      expect(put.json().details[0].field, `PUT ${key}`).toBe(
        key === 'smtp' || key === 'ai' ? 'value' : 'key',
      )
      const del = await call('DELETE', `/api/admin/settings/${key}`)
      expect(del.statusCode, `DELETE ${key}`).toBe(400)
      expect(del.json()).toMatchObject({ reason: 'VALIDATION_FAILED', details: [{ field: 'key' }] })
    }
    const rows = await t.deps.db
      .selectFrom('settings')
      .select('key')
      .where('key', 'like', 'billing%')
      .execute()
    expect(rows).toEqual([])
  })

  it('keys that merely start like a section are ordinary keys', async () => {
    for (const key of ['smtpx', 'aide', 'billings.count', 'ai_hints']) {
      expect((await call('PUT', `/api/admin/settings/${key}`, { value: 1 })).statusCode, key).toBe(
        200,
      )
    }
  })

  it('/smtp and /ai are the typed sections, never generic keys', async () => {
    const smtp = await call('GET', '/api/admin/settings/smtp')
    expect(smtp.statusCode).toBe(200)
    expect(smtp.json()).toHaveProperty('password_set')
    const ai = await call('GET', '/api/admin/settings/ai')
    expect(ai.statusCode).toBe(200)
    expect(ai.json()).toHaveProperty('api_key_set')
    // Percent-encoded names route to the same place.
    expect((await call('GET', '/api/admin/settings/%73mtp')).json()).toHaveProperty('password_set')
  })
})

describe('GET /api/admin/settings', () => {
  const fresh = useTestApp()
  scanResponsesForSecrets(fresh)

  it('lists { items, next_cursor } by key, pages with a cursor, and shows typed sections sanitized', async () => {
    const { token } = await createSignedInUser(fresh, { isAdmin: true })
    const list = (query = '') =>
      fresh.app.inject({
        method: 'GET',
        url: `/api/admin/settings${query}`,
        headers: bearer(token),
      })
    expect((await list()).json()).toEqual({ items: [], next_cursor: null })

    for (const key of ['zeta', 'alpha.b', 'alpha_b', 'alpha', 'beta.2', 'beta.10']) {
      await fresh.app.inject({
        method: 'PUT',
        url: `/api/admin/settings/${key}`,
        headers: bearer(token),
        payload: { value: key },
      })
    }
    await fresh.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/smtp',
      headers: bearer(token),
      payload: {
        current_password: DEFAULT_PASSWORD,
        host: 'smtp.example.com',
        username: 'mailer',
        password: SMTP_PASSWORD,
      },
    })
    await fresh.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/ai',
      headers: bearer(token),
      payload: { api_key: AI_API_KEY },
    })

    const all = await list()
    expect(all.statusCode).toBe(200)
    const body = all.json()
    // Byte order on both engines: '.' (0x2e) < '_' (0x5f) < letters.
    expect(body.items.map((s: { key: string }) => s.key)).toEqual([
      'ai',
      'alpha',
      'alpha.b',
      'alpha_b',
      'beta.10',
      'beta.2',
      'smtp',
      'zeta',
    ])
    expect(body.next_cursor).toBeNull()
    expect(body.items.find((s: { key: string }) => s.key === 'smtp')).toEqual({
      key: 'smtp',
      value: {
        enabled: false,
        host: 'smtp.example.com',
        port: 587,
        secure: false,
        username: 'mailer',
        from_address: null,
        from_name: null,
        password_set: true,
        plaintext_auth_on_loopback: false,
      },
      updated_at: expect.any(String),
    })
    expect(body.items.find((s: { key: string }) => s.key === 'ai').value).toEqual({
      enabled: false,
      provider: 'openai',
      base_url: 'https://api.openai.com/v1',
      model: null,
      api_key_set: true,
      suggestions_existing_tags_only: false,
      suggestions_hourly_limit: 60,
      timeout_seconds: 10,
      allow_private_network: false,
    })
    expect(all.body).not.toContain('v1.') // no ciphertext either

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { items: Array<{ key: string }>; next_cursor: string | null } = (
        await list(`?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`)
      ).json()
      expect(page.items.length).toBeLessThanOrEqual(3)
      seen.push(...page.items.map((s) => s.key))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(seen).toEqual(body.items.map((s: { key: string }) => s.key))

    const bad = await list('?cursor=not-a-cursor')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().details).toEqual([
      { field: 'cursor', message: 'is not a cursor returned by this endpoint', code: 'invalid' },
    ])
    expect((await list('?limit=0')).statusCode).toBe(400)
    expect((await list('?limit=201')).statusCode).toBe(400)
  })
})

describe('the OpenAPI document', () => {
  it('lists every settings route with its statuses', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    const expected: Array<[string, string, string[]]> = [
      ['get', '/api/admin/settings', ['200', '400', '401', '403']],
      ['get', '/api/admin/settings/{key}', ['200', '401', '403', '404']],
      ['put', '/api/admin/settings/{key}', ['200', '400', '401', '403', '413', '415']],
      ['delete', '/api/admin/settings/{key}', ['204', '400', '401', '403', '404']],
      ['get', '/api/admin/settings/smtp', ['200', '401', '403']],
      ['put', '/api/admin/settings/smtp', ['200', '400', '401', '403']],
      ['post', '/api/admin/settings/smtp/test', ['200', '400', '401', '403', '429', '502', '503']],
      ['get', '/api/admin/settings/ai', ['200', '401', '403']],
      ['put', '/api/admin/settings/ai', ['200', '400', '401', '403']],
      ['get', '/api/admin/settings/ai/models', ['200', '400', '401', '403', '502', '503']],
      ['get', '/api/config/ai-suggestions', ['200', '401']],
    ]
    for (const [method, path, statuses] of expected) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toBeTruthy()
      expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(statuses),
      )
    }
    expect(
      doc.paths['/api/admin/settings/smtp'].get.responses['200'].content['application/json'].schema
        .properties,
    ).not.toHaveProperty('password')
  })
})
