/**
 * Non-negotiable 3: no password, password hash, server secret or access token ever leaves in a
 * response body or a log line. Drives the account flows (including failures), then scans every
 * response and every captured log line for each secret it knows.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { bearer } from '../helpers/factories.js'

const t = useTestApp()
const responses: LightMyRequestResponse[] = []
const passwords = [
  'first admin passphrase',
  'second member passphrase',
  'wrong guess for the login',
  'renewed admin passphrase',
] as const

async function send(options: InjectOptions): Promise<LightMyRequestResponse> {
  const response = await t.app.inject(options)
  responses.push(response)
  return response
}

describe('secrets never leave the server', () => {
  afterAll(() => responses.splice(0))

  it('drives the flows', async () => {
    const setup = await send({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { email: 'root@example.com', name: 'Root', password: passwords[0] },
    })
    const adminToken: string = setup.json().token
    await send({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'root@example.com', password: passwords[2] },
    })
    await send({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'nobody@example.com', password: passwords[2] },
    })
    await send({
      method: 'POST',
      url: '/api/auth/setup',
      payload: { email: 'again@example.com', name: 'Again', password: passwords[1] },
    })
    await send({ method: 'GET', url: '/api/users/me', headers: bearer(adminToken) })
    await send({ method: 'GET', url: '/api/users/me/sessions', headers: bearer(adminToken) })
    await send({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(adminToken),
      payload: { name: 'Root Admin' },
    })
    await send({
      method: 'POST',
      url: '/api/users/me/password',
      headers: bearer(adminToken),
      payload: { current_password: passwords[2], new_password: passwords[3] },
    })
    await send({
      method: 'POST',
      url: '/api/users/me/password',
      headers: bearer(adminToken),
      payload: { current_password: passwords[0], new_password: passwords[3] },
    })
    await send({
      method: 'DELETE',
      url: '/api/users/me',
      headers: bearer(adminToken),
      payload: { password: passwords[3] },
    })
    await send({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'root@example.com', password: passwords[3] },
    })
    await send({ method: 'GET', url: '/api/openapi.json' })
    expect(responses.length).toBeGreaterThan(10)
  })

  it('no response body or header carries a password, a hash or a server secret', async () => {
    const hashes = (await t.deps.db.selectFrom('users').select('password_hash').execute())
      .map((r) => r.password_hash!)
      .filter(Boolean)
    expect(hashes.length).toBeGreaterThan(0)
    const secrets = [
      ...passwords,
      ...hashes,
      t.jwtSecret,
      t.encryptionKeyHex,
      t.deps.keys.csrf.toString('base64url'),
    ]
    for (const response of responses) {
      const text = response.body + JSON.stringify(response.headers)
      for (const secret of secrets) expect(text).not.toContain(secret)
      expect(text).not.toContain('$argon2')
    }
  })

  it('no log line carries a password, a hash, a server secret or an access token', async () => {
    const hashes = (await t.deps.db.selectFrom('users').select('password_hash').execute())
      .map((r) => r.password_hash!)
      .filter(Boolean)
    const tokens = responses
      .map((r) =>
        r.headers['content-type']?.toString().includes('json') ? r.json()?.token : undefined,
      )
      .filter(Boolean)
    expect(tokens.length).toBeGreaterThan(0)
    const secrets = [...passwords, ...hashes, ...tokens, t.jwtSecret, t.encryptionKeyHex]
    expect(t.logs.length).toBeGreaterThan(10)
    for (const line of t.logs) {
      for (const secret of secrets) expect(line).not.toContain(secret)
      expect(line).not.toContain('$argon2')
      expect(line.toLowerCase()).not.toContain('authorization')
      expect(line.toLowerCase()).not.toContain('cookie')
    }
  })

  it('the audit trail holds no password or token either', async () => {
    const rows = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'metadata', 'actor_email'])
      .execute()
    expect(rows.length).toBeGreaterThan(3)
    const text = JSON.stringify(rows)
    for (const secret of [...passwords, t.jwtSecret]) expect(text).not.toContain(secret)
    expect(text).not.toContain('eyJ')
  })
})
