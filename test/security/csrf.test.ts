/** docs/API.md#csrf: double-submit CSRF protection for cookie-authenticated unsafe requests. */
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { bearer, createSignedInUser } from '../helpers/factories.js'

const t = useTestApp()

function patchMe(options: { cookies?: Record<string, string>; headers?: Record<string, string> }) {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/users/me',
    payload: { theme: 'dark' },
    ...options,
  })
}

describe('CSRF', () => {
  it('refuses a cookie-authenticated unsafe request without the header: 403 CSRF_FAILED', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    const response = await patchMe({ cookies: { token, csrf_token: csrfToken } })
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({ code: 403, reason: 'CSRF_FAILED', error: 'Forbidden' })
  })

  it('accepts it with the header equal to the csrf_token cookie', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    const response = await patchMe({
      cookies: { token, csrf_token: csrfToken },
      headers: { 'x-csrf-token': csrfToken },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().theme).toBe('dark')
  })

  it('refuses a header that does not match the cookie', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    const response = await patchMe({
      cookies: { token, csrf_token: csrfToken },
      headers: { 'x-csrf-token': `${csrfToken}x` },
    })
    expect(response.statusCode).toBe(403)
  })

  it("refuses another session's token even when header and cookie agree (tokens are bound to the session)", async () => {
    const victim = await createSignedInUser(t)
    const attacker = await createSignedInUser(t)
    const response = await patchMe({
      cookies: { token: victim.token, csrf_token: attacker.csrfToken },
      headers: { 'x-csrf-token': attacker.csrfToken },
    })
    expect(response.statusCode).toBe(403)
    expect(response.json().reason).toBe('CSRF_FAILED')
  })

  it('refuses the header without the cookie', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    expect(
      (await patchMe({ cookies: { token }, headers: { 'x-csrf-token': csrfToken } })).statusCode,
    ).toBe(403)
  })

  it('needs no token for a Bearer request', async () => {
    const { token } = await createSignedInUser(t)
    expect((await patchMe({ headers: bearer(token) })).statusCode).toBe(200)
  })

  it('needs no token for a safe method with the cookie', async () => {
    const { token } = await createSignedInUser(t)
    const response = await t.app.inject({ method: 'GET', url: '/api/users/me', cookies: { token } })
    expect(response.statusCode).toBe(200)
  })

  it('applies to logout and to DELETE', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/auth/logout', cookies: { token } }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/api/users/me',
          cookies: { token },
          payload: {},
        })
      ).statusCode,
    ).toBe(403)
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { token, csrf_token: csrfToken },
      headers: { 'x-csrf-token': csrfToken },
    })
    expect(ok.statusCode).toBe(204)
  })

  it('GET /api/auth/csrf returns the session token and refreshes the cookie', async () => {
    const { token, csrfToken } = await createSignedInUser(t)
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/auth/csrf',
      cookies: { token },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ csrf_token: csrfToken })
    expect(response.cookies.find((c) => c.name === 'csrf_token')?.value).toBe(csrfToken)
  })

  it('checks authentication first: a bad cookie is 401, not 403', async () => {
    const response = await patchMe({ cookies: { token: 'garbage' } })
    expect(response.statusCode).toBe(401)
  })
})
