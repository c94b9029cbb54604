/**
 * The error envelope and reason of docs/API.md#errors for every class of failure, plus
 * X-Request-Id.
 */
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { REASONS } from '../src/errors.js'
import { useTestApp } from './helpers/app.js'
import { bearer, createApiTokenFor, createSignedInUser } from './helpers/factories.js'

const t = useTestApp()

function expectEnvelope(
  // Any response; the helper asserts the envelope.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  response: { statusCode: number; json(): any; headers: Record<string, unknown> },
  status: number,
  reason: string,
) {
  expect(response.statusCode).toBe(status)
  const body = response.json()
  expect(body).toMatchObject({ code: status, reason })
  expect(typeof body.error).toBe('string')
  expect(typeof body.message).toBe('string')
  expect(Object.keys(REASONS)).toContain(body.reason)
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  expect(response.headers['x-request-id']).toBeTruthy()
  return body
}

describe('error envelope', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/no/such/route' })
    const body = expectEnvelope(response, 404, 'NOT_FOUND')
    expect(body.error).toBe('Not Found')
  })

  it('answers an unknown route outside /api with the envelope too', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/favicon.ico' }), 404, 'NOT_FOUND')
  })

  it('answers a wrong method with 405 METHOD_NOT_ALLOWED and an Allow header', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/api/auth/setup' })
    const body = expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED')
    expect(body.error).toBe('Method Not Allowed')
    expect(String(response.headers.allow)).toContain('GET')
    expect(String(response.headers.allow)).toContain('POST')
  })

  it('recognises a wrong method on a parameterised path', async () => {
    const response = await t.app.inject({ method: 'PUT', url: '/api/users/me/sessions/abc' })
    expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED')
    expect(response.headers.allow).toBe('DELETE')
  })

  it('lists every failing field in VALIDATION_FAILED details, one entry per field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { email: 'not-an-email', name: 42, surprise: true },
    })
    const body = expectEnvelope(response, 400, 'VALIDATION_FAILED')
    const fields = body.details.map((d: { field: string }) => d.field).sort()
    expect(fields).toEqual(['email', 'name', 'password', 'surprise'])
    for (const detail of body.details) expect(typeof detail.message).toBe('string')
    expect(new Set(fields).size).toBe(fields.length)
  })

  it('does not coerce types in bodies: a number is not a name', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(user.token),
      payload: { name: 12 },
    })
    const body = expectEnvelope(response, 400, 'VALIDATION_FAILED')
    expect(body.details).toEqual([
      { field: 'name', message: 'must be of type string', code: 'wrong_type' },
    ])
  })

  it('rejects a body that is not valid JSON with 400 MALFORMED_JSON', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": "a@example.com",',
    })
    expectEnvelope(response, 400, 'MALFORMED_JSON')
  })

  it('rejects prototype-poisoning JSON as malformed', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__": {"is_admin": true}, "email": "a@example.com", "password": "x"}',
    })
    expectEnvelope(response, 400, 'MALFORMED_JSON')
  })

  it('rejects a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': type },
        payload: 'email=a',
      })
      expectEnvelope(response, 415, 'UNSUPPORTED_MEDIA_TYPE')
    }
  })

  it('rejects a body over 64 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(70 * 1024) }),
    })
    expectEnvelope(response, 413, 'PAYLOAD_TOO_LARGE')
  })

  it('treats an empty JSON body as no body and reports the missing fields', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    const body = expectEnvelope(response, 400, 'VALIDATION_FAILED')
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'email',
      'password',
    ])
  })

  it('answers 401 UNAUTHORIZED with a WWW-Authenticate challenge when credentials are missing', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/users/me' })
    expectEnvelope(response, 401, 'UNAUTHORIZED')
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/)
  })

  it('checks authentication before validation (401 before 400)', async () => {
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      payload: { theme: 'pink' },
    })
    expectEnvelope(response, 401, 'UNAUTHORIZED')
  })

  it('checks the role before the body (403 before 400, docs/API.md#status-rules)', async () => {
    const member = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/teams',
      headers: bearer(member.token),
      payload: { name: 42, extra: true },
    })
    expectEnvelope(response, 403, 'FORBIDDEN')
  })

  it('refuses an API token where a session is required before looking at the body', async () => {
    const member = await createSignedInUser(t)
    const { token } = await createApiTokenFor(t, member.token)
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: bearer(token),
      payload: { name: '' },
    })
    expectEnvelope(response, 403, 'SESSION_REQUIRED')
  })

  it('turns an unexpected failure into 500 INTERNAL with a generic message, logged with the request id', async () => {
    const requestId = 'trace-internal-500'
    const secretDetail = 'connection string postgres://admin:hunter2@db/prod'
    const app = await (await import('../src/app.js')).buildApp(t.deps)
    app.get('/api/test/explode', { config: { auth: 'public' } }, async () => {
      throw new Error(secretDetail)
    })
    const response = await app.inject({
      method: 'GET',
      url: '/api/test/explode',
      headers: { 'x-request-id': requestId },
    })
    const body = expectEnvelope(response, 500, 'INTERNAL')
    expect(body.message).toBe(REASONS.INTERNAL.message)
    expect(response.body).not.toContain('hunter2')
    expect(response.body).not.toMatch(/at .*\.ts:\d+/)
    const logged = t.logs.filter(
      (line) => line.includes(requestId) && line.includes('request failed unexpectedly'),
    )
    expect(logged).toHaveLength(1)
    expect(logged[0]).not.toContain('"stack"')
    await app.close()
  })
})

describe('malformed requests never escape the envelope', () => {
  it('answers a URL with broken percent-encoding with 400', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/%zz' })
    expectEnvelope(response, 400, 'VALIDATION_FAILED')
  })

  it('answers an over-long path parameter with 404 (it cannot name anything)', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/me/sessions/${'a'.repeat(400)}`,
      headers: bearer(user.token),
    })
    expectEnvelope(response, 404, 'NOT_FOUND')
  })

  it('refuses a body that is not valid UTF-8 instead of storing replacement characters', async () => {
    const user = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: { ...bearer(user.token), 'content-type': 'application/json' },
      payload: Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    })
    expectEnvelope(response, 400, 'MALFORMED_JSON')
  })

  it('refuses unpaired surrogates in text but accepts any real character', async () => {
    const user = await createSignedInUser(t)
    const lone = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: { ...bearer(user.token), 'content-type': 'application/json' },
      payload: '{"name":"broken \\ud800 pair"}', // a JSON escape for a lone surrogate
    })
    expectEnvelope(lone, 400, 'VALIDATION_FAILED')
    const emoji = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(user.token),
      payload: { name: 'Zoë 🚀 日本' },
    })
    expect(emoji.statusCode).toBe(200)
    expect(emoji.json().name).toBe('Zoë 🚀 日本')
  })

  it('answers oversized headers and broken HTTP with the envelope, on the socket', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request))
        let data = ''
        socket.on('data', (chunk) => (data += chunk.toString()))
        socket.on('close', () => resolve(data))
      })
    const oversized = await raw(
      `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    expect(oversized).toMatch(/^HTTP\/1\.1 413 /)
    expect(JSON.parse(oversized.split('\r\n\r\n')[1]!)).toMatchObject({
      code: 413,
      reason: 'PAYLOAD_TOO_LARGE',
    })
    const broken = await raw('THIS IS NOT HTTP\r\n\r\n')
    expect(broken).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(broken.split('\r\n\r\n')[1]!)).toMatchObject({
      code: 400,
      reason: 'VALIDATION_FAILED',
    })
  })
})

describe('X-Request-Id', () => {
  it('is generated for every response, errors included', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/api/health' })
    const missing = await t.app.inject({ method: 'GET', url: '/api/missing' })
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(ok.headers['x-request-id']).not.toBe(missing.headers['x-request-id'])
  })

  it('carries the id the client sent through to the response and every log line of the request', async () => {
    const id = 'client-chosen-id.123'
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': id },
    })
    expect(response.headers['x-request-id']).toBe(id)
    const lines = t.logs.filter((line) => line.includes(id))
    expect(lines.length).toBeGreaterThanOrEqual(2)
    for (const line of lines) expect(JSON.parse(line).request_id).toBe(id)
  })

  it('replaces an id that is not a sane token, so it cannot inject into logs', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    })
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('appears on every log line that belongs to a request', async () => {
    await t.app.inject({ method: 'GET', url: '/api/users/me' })
    const requestLines = t.logs
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.req || entry.res)
    expect(requestLines.length).toBeGreaterThan(0)
    for (const entry of requestLines) expect(typeof entry.request_id).toBe('string')
  })
})
