/**
 * The AI section, the model list and the AI-suggestion flags, against a local OpenAI-compatible
 * API.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encrypt } from '../../lib/crypto.js'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../test/helpers/openai-stand-in.js'
import {
  AI_API_KEY,
  OTHER_AI_API_KEY,
  scanResponsesForSecrets,
} from '../../../test/helpers/secret-scan.js'

const t = useTestApp()
scanResponsesForSecrets(t)

let provider: OpenAiStandIn
let admin: TestUser & SignedIn
beforeAll(async () => {
  provider = await startOpenAiStandIn(AI_API_KEY)
  admin = await createSignedInUser(t, { isAdmin: true })
})
afterAll(async () => {
  await provider?.close()
})

const getAi = () =>
  t.app.inject({ method: 'GET', url: '/api/admin/settings/ai', headers: bearer(admin.token) })
const putAi = (payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/ai',
    headers: bearer(admin.token),
    payload,
  })
const models = (query = '') =>
  t.app.inject({
    method: 'GET',
    url: `/api/admin/settings/ai/models${query}`,
    headers: bearer(admin.token),
  })
const flags = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/config/ai-suggestions', headers: bearer(token) })

describe('before any configuration', () => {
  it('GET /ai answers the defaults', async () => {
    const response = await getAi()
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      enabled: false,
      provider: 'openai',
      base_url: 'https://api.openai.com/v1',
      model: null,
      api_key_set: false,
      suggestions_existing_tags_only: false,
      suggestions_hourly_limit: 60,
      timeout_seconds: 10,
      allow_private_network: false,
    })
  })

  it('the model list is 503 NOT_CONFIGURED without a key, and nothing is asked of the provider', async () => {
    const response = await models()
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({ reason: 'NOT_CONFIGURED', code: 503 })
    expect(provider.calls).toHaveLength(0)
  })

  it('the flags say unavailable to any signed-in user', async () => {
    const user = await createSignedInUser(t)
    const response = await flags(user.token)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ available: false, enabled: false })
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/config/ai-suggestions' })).statusCode,
    ).toBe(401)
  })
})

describe('PUT /api/admin/settings/ai', () => {
  it('stores a partial update; the key is write-only and encrypted at rest', async () => {
    const response = await putAi({ base_url: `${provider.baseUrl}/`, api_key: AI_API_KEY })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      enabled: false,
      provider: 'openai',
      base_url: provider.baseUrl,
      model: null,
      api_key_set: true,
      suggestions_existing_tags_only: false,
      suggestions_hourly_limit: 60,
      timeout_seconds: 10,
      allow_private_network: false,
    })
    const row = await t.deps.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'ai')
      .executeTakeFirstOrThrow()
    expect(row.value).not.toContain(AI_API_KEY)
    expect(JSON.parse(row.value).api_key_encrypted).toMatch(/^v1\./)
  })

  it('refuses to enable AI without a model, then enables it with one', async () => {
    const refused = await putAi({ enabled: true })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().details).toEqual([
      { field: 'model', message: 'is required while AI is enabled', code: 'invalid' },
    ])
    expect((await getAi()).json().enabled).toBe(false)
    const enabled = await putAi({ enabled: true, model: 'gpt-4o-mini', provider: 'openai' })
    expect(enabled.statusCode).toBe(200)
    expect(enabled.json()).toMatchObject({ enabled: true, model: 'gpt-4o-mini', api_key_set: true })
  })

  it('refuses clearing the key while enabled; the key is kept when omitted', async () => {
    const refused = await putAi({ api_key: null })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().details).toEqual([
      { field: 'api_key', message: 'is required while AI is enabled', code: 'invalid' },
    ])
    expect((await putAi({ model: 'gpt-4o' })).json()).toMatchObject({
      model: 'gpt-4o',
      api_key_set: true,
    })
  })

  it('validates provider, base_url (http(s), no credentials, query or fragment) and unknown fields', async () => {
    const bad = await putAi({
      provider: 'anthropic',
      base_url: 'ftp://example.com',
      model: '',
      api_key_set: false,
    })
    expect(bad.statusCode).toBe(400)
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['api_key_set', 'base_url', 'model', 'provider'])
    // An address that is not http(s) is a format problem (a client says "a web address such as
    // https://…").
    for (const url of ['ftp://example.com', 'kein url']) {
      expect((await putAi({ base_url: url })).json().details, url).toEqual([
        { field: 'base_url', message: 'must be an http(s) URL', code: 'format', format: 'uri' },
      ])
    }
    for (const url of [
      'https://user:pass@api.example.com/v1',
      'https://api.example.com/v1?key=1',
      'https://api.example.com/v1#x',
      'http://',
    ]) {
      const response = await putAi({ base_url: url })
      expect(response.statusCode, url).toBe(400)
      expect(response.json().details[0].field).toBe('base_url')
    }
    expect((await putAi({})).statusCode).toBe(400)
    expect((await getAi()).json().base_url).toBe(provider.baseUrl)
  })

  it('audits updates with field names only', async () => {
    const events = await t.deps.db
      .selectFrom('audit_events')
      .select('metadata')
      .where('action', '=', 'ai.update')
      .execute()
    expect(events.length).toBeGreaterThanOrEqual(3)
    expect(JSON.parse(events[0]!.metadata)).toEqual({ fields: ['api_key', 'base_url'] })
    expect(JSON.stringify(events)).not.toContain(AI_API_KEY)
  })
})

describe('GET /api/admin/settings/ai/models', () => {
  it('lists the provider models by id with owned_by (null when absent), asking with the Bearer key', async () => {
    provider.calls.length = 0
    const response = await models()
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      items: [
        { id: 'gpt-4o', owned_by: 'system' },
        { id: 'gpt-4o-mini', owned_by: 'system' },
        { id: 'local-model', owned_by: null },
        { id: 'text-embedding-3-small', owned_by: 'openai-internal' },
      ],
      next_cursor: null,
    })
    expect(provider.calls).toEqual([{ authorization: `Bearer ${AI_API_KEY}` }])
  })

  it('pages with limit and cursor like every collection', async () => {
    const first = (await models('?limit=3')).json()
    expect(first.items.map((m: { id: string }) => m.id)).toEqual([
      'gpt-4o',
      'gpt-4o-mini',
      'local-model',
    ])
    expect(first.next_cursor).toEqual(expect.any(String))
    const second = (await models(`?limit=3&cursor=${first.next_cursor}`)).json()
    expect(second).toEqual({
      items: [{ id: 'text-embedding-3-small', owned_by: 'openai-internal' }],
      next_cursor: null,
    })
    expect((await models('?cursor=garbage')).statusCode).toBe(400)
  })

  it('is cached for 5 minutes', async () => {
    provider.calls.length = 0
    await models()
    expect(provider.calls).toHaveLength(0)
    t.clock.advance(5 * 60 - 5)
    await models()
    expect(provider.calls).toHaveLength(0)
    t.clock.advance(10)
    expect((await models()).statusCode).toBe(200)
    expect(provider.calls).toHaveLength(1)
    await models()
    expect(provider.calls).toHaveLength(1)
  })

  it('is fetched afresh once the AI settings change', async () => {
    provider.models.push({ id: 'added-later', owned_by: 'me' })
    provider.calls.length = 0
    await putAi({ model: 'gpt-4o-mini' })
    const response = await models('?limit=200')
    expect(provider.calls).toHaveLength(1)
    expect(response.json().items.map((m: { id: string }) => m.id)).toContain('added-later')
  })

  it('502 UPSTREAM_FAILED when the provider refuses the key — with the status and code, never its text', async () => {
    await putAi({ api_key: OTHER_AI_API_KEY })
    const response = await models()
    expect(response.statusCode).toBe(502)
    expect(response.json()).toMatchObject({
      reason: 'UPSTREAM_FAILED',
      message: 'The AI provider answered HTTP 401 (invalid_api_key).',
    })
    expect(provider.calls.at(-1)).toEqual({ authorization: `Bearer ${OTHER_AI_API_KEY}` })
    await putAi({ api_key: AI_API_KEY })
  })

  it('502 for a provider error, a non-JSON answer, an answer without a list, a redirect and an unreachable provider; none is cached', async () => {
    const cases: Array<[OpenAiStandIn['mode'], string]> = [
      ['server-error', 'The AI provider answered HTTP 500 (server_error).'],
      ['not-json', 'The AI provider answered with something other than JSON.'],
      ['no-list', 'The AI provider answered without a model list.'],
      ['redirect', 'The AI provider answered HTTP 302.'],
    ]
    for (const [mode, message] of cases) {
      provider.mode = mode
      await putAi({ model: `model-for-${mode}` }) // a new configuration: no cached list applies
      const before = provider.calls.length
      for (let i = 0; i < 2; i++) {
        const response = await models()
        expect(response.statusCode, mode).toBe(502)
        expect(response.json().message).toBe(message)
      }
      expect(provider.calls.length - before, mode).toBe(2)
    }
    provider.mode = 'ok'

    const gone = await startOpenAiStandIn(AI_API_KEY)
    await gone.close()
    await putAi({ base_url: gone.baseUrl, api_key: AI_API_KEY })
    const unreachable = await models()
    expect(unreachable.statusCode).toBe(502)
    expect(unreachable.json().message).toBe('The AI provider could not be reached (ECONNREFUSED).')
    await putAi({ base_url: provider.baseUrl, api_key: AI_API_KEY })
    expect((await models()).statusCode).toBe(200)
  })
})

describe('a stored key that no longer decrypts (ENCRYPTION_KEY changed)', () => {
  it('makes the model list 503 NOT_CONFIGURED, says so in the log, and setting the key again mends it', async () => {
    const row = await t.deps.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'ai')
      .executeTakeFirstOrThrow()
    const foreign = encrypt(randomBytes(32), AI_API_KEY, 'settings.ai')
    const value = JSON.stringify({ ...JSON.parse(row.value), api_key_encrypted: foreign })
    await t.deps.db.updateTable('settings').set({ value }).where('key', '=', 'ai').execute()
    const response = await models()
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({
      reason: 'NOT_CONFIGURED',
      message: 'The stored AI API key cannot be decrypted; an administrator must set it again.',
    })
    expect(
      t.logs.some((line) =>
        line.includes('the stored AI API key cannot be decrypted with the current ENCRYPTION_KEY'),
      ),
    ).toBe(true)
    await putAi({ api_key: AI_API_KEY })
    expect((await models()).statusCode).toBe(200)
  })
})

describe('GET /api/config/ai-suggestions', () => {
  it('available when AI is configured and on; enabled when the user also wants it', async () => {
    const user = await createSignedInUser(t)
    expect((await flags(user.token)).json()).toEqual({ available: true, enabled: true })
    await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(user.token),
      payload: { ai_suggestions_enabled: false },
    })
    expect((await flags(user.token)).json()).toEqual({ available: true, enabled: false })
    await putAi({ enabled: false })
    expect((await flags(admin.token)).json()).toEqual({ available: false, enabled: false })
    await putAi({ enabled: true })
    expect((await flags(admin.token)).json()).toEqual({ available: true, enabled: true })
  })
})
