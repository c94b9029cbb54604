import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  DEFAULT_PASSWORD,
  enableMfa,
  login,
} from '../../../test/helpers/factories.js'
import { runCli } from '../../cli.js'

const t = useTestApp()

describe('POST /api/admin/users/{id}/mfa/reset', () => {
  it('lets an administrator remove a user’s MFA; the user signs in with the password alone', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${user.user.id}/mfa/reset`,
      headers: bearer(admin.token),
      payload: { current_password: DEFAULT_PASSWORD },
    })
    expect(response.statusCode).toBe(204)
    // The reset ended the user's sessions; a password alone signs in again.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
        .statusCode,
    ).toBe(401)
    const fresh = await login(t, user.email, DEFAULT_PASSWORD)
    expect(fresh.token).toBeTruthy()
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/mfa/status',
      headers: bearer(fresh.token),
    })
    expect(status.json()).toEqual({
      enabled: false,
      pending: false,
      backup_codes_remaining: 0,
      enrollment_required: false,
    })
    expect(Object.keys(status.json<object>())).not.toContain('enrolled_at')
    const audit = await t.deps.db
      .selectFrom('audit_events')
      .select(['action', 'actor_id'])
      .where('target_id', '=', user.user.id)
      .where('action', '=', 'mfa.reset')
      .execute()
    expect(audit).toEqual([{ action: 'mfa.reset', actor_id: admin.user.id }])
  })

  it('is for administrators only, and 404 for an unknown user', async () => {
    const admin = await createSignedInUser(t, { isAdmin: true })
    const user = await createSignedInUser(t)
    const forbidden = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${admin.user.id}/mfa/reset`,
      headers: bearer(user.token),
    })
    expect(forbidden.json()).toMatchObject({ code: 403, reason: 'FORBIDDEN' })
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/admin/users/${admin.user.id}/mfa/reset` }))
        .statusCode,
    ).toBe(401)
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users/no-such-user/mfa/reset',
      headers: bearer(admin.token),
    })
    expect(unknown.json()).toMatchObject({ code: 404, reason: 'NOT_FOUND' })
  })
})

describe('switchboard reset-mfa', () => {
  it('removes a user’s MFA by email', async () => {
    const user = await createSignedInUser(t)
    await enableMfa(t, user)
    let stdout = ''
    let stderr = ''
    const io = {
      env: t.env,
      stdin: Readable.from([]),
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    }
    expect(await runCli(['reset-mfa', user.email.toUpperCase()], io)).toBe(0)
    expect(stdout).toBe(`two-factor authentication removed for ${user.email}\n`)
    // The reset ended the user's sessions too.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(user.token) }))
        .statusCode,
    ).toBe(401)
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/auth/mfa/status',
      headers: bearer((await login(t, user.email, DEFAULT_PASSWORD)).token),
    })
    expect(status.json().enabled).toBe(false)
    expect(await runCli(['reset-mfa', 'nobody@example.com'], io)).toBe(1)
    expect(stderr).toContain('no user')
  })
})
