/**
 * A session ends after SESSION_IDLE_TIMEOUT without a request (default 12 h,
 * besides the absolute SESSION_TTL); a password change can also revoke the account's API tokens.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  DEFAULT_PASSWORD,
} from '../helpers/factories.js'

const me = (t: ReturnType<typeof useTestApp>, token: string) =>
  t.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) })

describe('session idle timeout (SESSION_IDLE_TIMEOUT=30m)', () => {
  const t = useTestApp({ env: { SESSION_IDLE_TIMEOUT: '30m', RATE_LIMIT_GENERAL: '0' } })

  it('a session idle longer than the timeout ends; one in use lives on', async () => {
    const idle = await createSignedInUser(t)
    const busy = await createSignedInUser(t)
    const lastSeenMs = async () => {
      const row = await t.deps.db
        .selectFrom('sessions')
        .select('last_seen_at')
        .where('user_id', '=', busy.user.id)
        .executeTakeFirstOrThrow()
      return Date.parse(String(row.last_seen_at))
    }
    for (let minute = 0; minute < 4; minute++) {
      t.clock.advance(10 * 60) // 40 minutes in all, with a request every 10 minutes
      const requestedAt = t.clock.now().getTime()
      expect((await me(t, busy.token)).statusCode).toBe(200)
      // last_seen_at is written after the answer
      await expect.poll(lastSeenMs, { timeout: 5000 }).toBeGreaterThanOrEqual(requestedAt - 1000)
    }
    expectReason(await me(t, idle.token), 401, 'UNAUTHORIZED')
    expect((await me(t, busy.token)).statusCode).toBe(200)
    // The idle session is no longer listed either.
    const listed = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/sessions',
      headers: bearer(busy.token),
    })
    expect(listed.json().items).toHaveLength(1)
  })

  it('defaults to 12 hours', () => {
    expect(parseConfig({}).sessionIdleSeconds).toBe(12 * 3600)
  })
})

describe('password change with revoke_api_tokens', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

  it('keeps API tokens by default and revokes them all when asked', async () => {
    const user = await createSignedInUser(t)
    const kept = await createApiTokenFor(t, user.token)
    const change = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/users/me/password',
        headers: bearer(user.token),
        payload,
      })
    expect(
      (
        await change({
          current_password: DEFAULT_PASSWORD,
          new_password: 'second sound passphrase 1',
        })
      ).statusCode,
    ).toBe(204)
    expect((await me(t, kept.token)).statusCode).toBe(200)
    const doomed = await createApiTokenFor(t, user.token, 'another')
    expect(
      (
        await change({
          current_password: 'second sound passphrase 1',
          new_password: 'third sound passphrase 2',
          revoke_api_tokens: true,
        })
      ).statusCode,
    ).toBe(204)
    expectReason(await me(t, kept.token), 401, 'UNAUTHORIZED')
    expectReason(await me(t, doomed.token), 401, 'UNAUTHORIZED')
    // The session that changed the password lives on.
    expect((await me(t, user.token)).statusCode).toBe(200)
  })
})
