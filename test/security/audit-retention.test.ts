/**
 * Failed sign-in audit events are kept FAILED_LOGIN_RETENTION_DAYS (default
 * 90) and then purged — at start and hourly — while every other event stays.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { insertAuditEvents } from '../../src/modules/audit/repo.js'
import { purgeExpiredFailedSignIns } from '../../src/modules/audit/retention.js'
import { startInstance, useTestApp } from '../helpers/app.js'
import { turnsDuring } from '../helpers/event-loop.js'
import { createUser, DEFAULT_PASSWORD } from '../helpers/factories.js'

const DAY = 86_400

describe('failed sign-in audit retention', () => {
  const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
  const signIn = (email: string, password: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: '10.18.0.1',
    })
  const actionsOf = async (targetId: string) =>
    (
      await t.deps.db
        .selectFrom('audit_events')
        .select(['action', 'at'])
        .where('target_id', '=', targetId)
        .orderBy('at')
        .execute()
    ).map((e) => e.action)

  it('failed sign-in events older than 90 days are purged; newer ones and every other event stay', async () => {
    const { user, email } = await createUser(t)
    t.clock.advance(-91 * DAY)
    expect((await signIn(email, 'an old wrong guess')).statusCode).toBe(401)
    expect((await signIn(email, DEFAULT_PASSWORD)).statusCode).toBe(200)
    t.clock.advance(91 * DAY)
    expect((await signIn(email, 'a recent wrong guess')).statusCode).toBe(401)
    expect(await actionsOf(user.id)).toEqual([
      'auth.login_failed',
      'auth.login',
      'auth.login_failed',
    ])

    // A purge whose service is closing (its signal aborted) leaves them to the next one.
    expect(await purgeExpiredFailedSignIns(t.deps, AbortSignal.abort())).toBe(0)
    expect(await actionsOf(user.id)).toHaveLength(3)
    expect(await purgeExpiredFailedSignIns(t.deps)).toBeGreaterThanOrEqual(1)
    expect(await actionsOf(user.id)).toEqual(['auth.login', 'auth.login_failed'])
  })

  it('a purge of a large backlog gives the event loop a turn between its batches of 1,000', async () => {
    const old = new Date(t.clock.now().getTime() - 100 * DAY * 1000).toISOString()
    const failed = (n: number) =>
      Array.from({ length: n }, () => ({
        at: old,
        actorId: null,
        actorEmail: 'nobody@example.com',
        action: 'auth.login_failed',
        targetType: null,
        targetId: null,
        ip: '10.18.0.2',
        userAgent: null,
        subjectUserId: null,
        metadata: {},
      }))
    for (let i = 0; i < 3; i++) await insertAuditEvents(t.deps.db, failed(1000))
    let removed = 0
    const turns = await turnsDuring(async () => (removed = await purgeExpiredFailedSignIns(t.deps)))
    expect(removed).toBeGreaterThanOrEqual(3000)
    expect(turns).toBeGreaterThanOrEqual(3)
  })

  it('the retention is configurable (FAILED_LOGIN_RETENTION_DAYS, default 90 days) and the purge runs when an instance starts', async () => {
    expect(parseConfig({}).failedLoginRetentionDays).toBe(90)
    const { user, email } = await createUser(t)
    t.clock.advance(-2 * DAY)
    expect((await signIn(email, 'a wrong guess two days ago')).statusCode).toBe(401)
    t.clock.advance(2 * DAY)
    expect(await actionsOf(user.id)).toEqual(['auth.login_failed'])
    // An instance with a one-day retention purges at start, without being asked.
    const short = await startInstance({ ...t.env, FAILED_LOGIN_RETENTION_DAYS: '1' }, t.clock)
    try {
      for (let i = 0; i < 50 && (await actionsOf(user.id)).length > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await actionsOf(user.id)).toEqual([])
    } finally {
      await short.close()
    }
  })
})
