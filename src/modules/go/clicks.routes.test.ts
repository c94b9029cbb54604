/**
 * Click counts: every redirect counts, in bursts, across instances, and through a clean shutdown.
 */
import { describe, expect, it } from 'vitest'
import { startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { createOrgWithRoles } from '../../../test/helpers/organizations.js'
import type { FastifyInstance } from 'fastify'
import { createClickCounter, utcDay } from './clicks.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

const recentClicks = async (linkId: string) =>
  Number(
    (
      await t.deps.db
        .selectFrom('links')
        .select('recent_clicks')
        .where('id', '=', linkId)
        .executeTakeFirstOrThrow()
    ).recent_clicks,
  )

const stored = async (linkId: string) =>
  (
    await t.deps.db
      .selectFrom('link_clicks')
      .select(['day', 'clicks'])
      .where('link_id', '=', linkId)
      .execute()
  ).map((row) => ({
    day: row.day,
    clicks: Number(row.clicks),
  }))

async function burst(app: FastifyInstance, token: string, path: string, n: number): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: n }, () =>
      app.inject({ method: 'GET', url: path, headers: bearer(token) }),
    ),
  )
  for (const response of responses) expect(response.statusCode).toBe(302)
}

/**
 * The flush runs every second; the margin is for a loaded CI machine (a 5 s wait failed there
 * once).
 */
async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not within time')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('click counts', () => {
  it('counts 1,000 concurrent redirects as 1,000, written by the next flush, in one row per day', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'counted',
      url: 'https://counted.example/',
    })
    await burst(t.app, user.token, '/go/counted/some/path', 1000)
    await eventually(async () => (await stored(link.id)).length > 0)
    await eventually(async () => (await stored(link.id))[0]?.clicks === 1000)
    expect(await stored(link.id)).toEqual([{ day: utcDay(t.clock.now()), clicks: 1000 }])
    // The link's count of the last 30 days, written with them (the most-clicked order's key).
    expect(await recentClicks(link.id)).toBe(1000)
  })

  it('counts nothing for a refused address, a chooser or a miss', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'refused',
      url: 'https://refused.example/docs',
    })
    const response = await t.app.inject({
      method: 'GET',
      url: '/go/refused/%2e%2e',
      headers: bearer(user.token),
    })
    expect(response.statusCode).toBeGreaterThanOrEqual(400)
    await t.app.inject({ method: 'GET', url: '/go/no-such-link', headers: bearer(user.token) })
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect(await stored(link.id)).toEqual([])
  })

  it('loses none on a clean shutdown, and two instances add up rather than overwrite', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'shutdown',
      url: 'https://shutdown.example/',
    })
    const peer = await startPeerInstance(t)
    // One burst after the other: both at once would exceed the test database's connection pool
    // waits on a shared machine.
    await burst(t.app, user.token, '/go/shutdown', 1000)
    await burst(peer.app, user.token, '/go/shutdown', 1000)
    // Closed at once — well within the flush interval: the close writes what is pending.
    await peer.close()
    // The peer's thousand are written by its close, not by a timer that may still come.
    expect((await stored(link.id))[0]?.clicks).toBeGreaterThanOrEqual(1000)
    await eventually(async () => (await stored(link.id))[0]?.clicks === 2000)
    expect(await stored(link.id)).toEqual([{ day: utcDay(t.clock.now()), clicks: 2000 }])
    expect(await recentClicks(link.id)).toBe(2000)
  })

  it('drops the clicks of a link deleted before they were written, and keeps the others', async () => {
    const user = await createSignedInUser(t)
    const kept = await createLink(t, user.token, { slug: 'kept', url: 'https://kept.example/' })
    const gone = await createLink(t, user.token, { slug: 'gone', url: 'https://gone.example/' })
    const peer = await startPeerInstance(t)
    await burst(peer.app, user.token, '/go/kept', 3)
    await burst(peer.app, user.token, '/go/gone', 2)
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/links/${gone.id}`,
          headers: bearer(user.token),
        })
      ).statusCode,
    ).toBe(204)
    await peer.close()
    expect(await stored(kept.id)).toEqual([{ day: utcDay(t.clock.now()), clicks: 3 }])
    expect(await stored(gone.id)).toEqual([])
  })
})

describe('the day a click counts on', () => {
  it('follows the clock across midnight, both ways', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'midnight',
      url: 'https://midnight.example/',
    })
    let now = Date.parse('2026-03-01T23:59:59.999Z')
    const counter = createClickCounter({
      db: t.deps.db,
      clock: { now: () => new Date(now) },
      logger: t.deps.logger,
    })
    counter.count(link.id)
    now += 1
    counter.count(link.id)
    counter.count(link.id)
    // A clock set back (NTP) counts on the earlier day again.
    now -= 2 * 60 * 60 * 1000
    counter.count(link.id)
    now = Date.parse('2026-03-05T12:00:00.000Z')
    counter.count(link.id)
    await counter.close()
    const rows = await stored(link.id)
    expect(rows.sort((a, b) => a.day.localeCompare(b.day))).toEqual([
      { day: '2026-03-01', clicks: 2 },
      { day: '2026-03-02', clicks: 2 },
      { day: '2026-03-05', clicks: 1 },
    ])
  })
})

describe('click counts in the API', () => {
  const daysAgo = (n: number) => utcDay(new Date(t.clock.now().getTime() - n * 24 * 60 * 60 * 1000))

  it('shows the last 30 days on the link views and a 90-day daily series, only to those who see the link', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'reported',
      url: 'https://reported.example/',
    })
    // Earlier days as the flush would have left them.
    await t.deps.db
      .insertInto('link_clicks')
      .values([
        { link_id: link.id, day: daysAgo(29), clicks: 5 },
        { link_id: link.id, day: daysAgo(30), clicks: 7 },
        { link_id: link.id, day: daysAgo(89), clicks: 11 },
        { link_id: link.id, day: daysAgo(90), clicks: 13 },
      ])
      .execute()
    await burst(t.app, user.token, '/go/reported', 3)
    await eventually(async () =>
      (await stored(link.id)).some((row) => row.day === daysAgo(0) && row.clicks === 3),
    )

    const one = await t.app.inject({
      method: 'GET',
      url: `/api/links/${link.id}`,
      headers: bearer(user.token),
    })
    expect(one.json().clicks_30d).toBe(8)
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/links',
      headers: bearer(user.token),
    })
    expect(list.json().items.find((item: { id: string }) => item.id === link.id).clicks_30d).toBe(8)

    const series = await t.app.inject({
      method: 'GET',
      url: `/api/links/${link.id}/clicks`,
      headers: bearer(user.token),
    })
    expect(series.statusCode).toBe(200)
    const body = series.json<{
      link_id: string
      days: { day: string; clicks: number }[]
      total: number
    }>()
    expect(body.link_id).toBe(link.id)
    expect(body.days).toHaveLength(90)
    expect(body.days[0]).toEqual({ day: daysAgo(89), clicks: 11 })
    expect(body.days.at(-1)).toEqual({ day: daysAgo(0), clicks: 3 })
    expect(body.days.find((entry) => entry.day === daysAgo(30))).toEqual({
      day: daysAgo(30),
      clicks: 7,
    })
    expect(body.total).toBe(3 + 5 + 7 + 11)

    // The JSON export carries every kept day, oldest first.
    const exported = await t.app.inject({
      method: 'GET',
      url: '/api/links/export?format=json&q=reported.example',
      headers: bearer(user.token),
    })
    expect(exported.json().links).toEqual([
      expect.objectContaining({
        slug: 'reported',
        clicks: [
          { day: daysAgo(90), clicks: 13 },
          { day: daysAgo(89), clicks: 11 },
          { day: daysAgo(30), clicks: 7 },
          { day: daysAgo(29), clicks: 5 },
          { day: daysAgo(0), clicks: 3 },
        ],
      }),
    ])

    const stranger = await createSignedInUser(t)
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/api/links/${link.id}/clicks`,
      headers: bearer(stranger.token),
    })
    expect(hidden.statusCode).toBe(404)
    expect(hidden.json().reason).toBe('NOT_FOUND')
  })

  it('a new link starts at 0', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { url: 'https://new.example/' })
    expect(link.clicks_30d).toBe(0)
  })
})

describe('/go/<slug>+', () => {
  it("offers the console's Edit only to whoever may change the link", async () => {
    const org = await createOrgWithRoles(t)
    const link = await createLink(t, org.owner.token, {
      slug: 'shared-details',
      organization_id: org.id,
    })
    const edit = `<a href="/links?edit=${encodeURIComponent(link.id)}">Edit in the console</a>`
    const page = async (token: string) =>
      (await t.app.inject({ method: 'GET', url: '/go/shared-details+', cookies: { token } })).body
    expect(await page(org.owner.token)).toContain(edit)
    expect(await page(org.admin.token)).toContain(edit)
    const member = await page(org.member.token)
    expect(member).toContain('go/shared-details')
    expect(member).not.toContain('Edit in the console')
  })

  it('shows destination, owner, dates and the last 30 days of clicks without opening the link, escaped', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, {
      slug: 'detailed',
      url: 'https://detailed.example/?a=1&b=2',
      title: '<i>Docs</i>',
    })
    await burst(t.app, user.token, '/go/detailed', 2)
    await eventually(async () => (await stored(link.id))[0]?.clicks === 2)
    const response = await t.app.inject({
      method: 'GET',
      url: '/go/Detailed+',
      cookies: { token: user.token },
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers.location).toBeUndefined()
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(response.body).toContain('href="https://detailed.example/?a=1&amp;b=2"')
    expect(response.body).toContain('&lt;i&gt;Docs&lt;/i&gt;')
    expect(response.body).toContain('<strong>Owner:</strong> you')
    // The console's format of a moment (medium date, short time), in UTC and saying so.
    const day = (iso: string, locale: string) =>
      `${new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`
    expect(response.body).toContain(
      `Created <time datetime="${link.created_at}">${day(link.created_at, 'en')}</time>, last changed`,
    )
    expect(response.body).toContain('2 clicks in the last 30 days')
    // Its creator may change it: the way into the console's edit dialog.
    expect(response.body).toContain(
      `<a href="/links?edit=${encodeURIComponent(link.id)}">Edit in the console</a>`,
    )
    // In German, the days as a German reader writes them.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: { authorization: `Bearer ${user.token}` },
      payload: { language: 'de' },
    })
    expect(patched.statusCode).toBe(200)
    const german = await t.app.inject({
      method: 'GET',
      url: '/go/detailed+',
      cookies: { token: user.token },
    })
    expect(german.body).toContain(
      `Angelegt am <time datetime="${link.created_at}">${day(link.created_at, 'de')}</time>, zuletzt geändert am`,
    )
    expect(day(link.created_at, 'de')).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC$/u)
    expect(german.body).toContain('In der Konsole bearbeiten')
    // Looking is not a click; a stranger, and a visitor signed out, see nothing of it.
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect((await stored(link.id))[0]?.clicks).toBe(2)
    const stranger = await createSignedInUser(t)
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/go/detailed+',
          cookies: { token: stranger.token },
        })
      ).statusCode,
    ).toBe(404)
    const signedOut = await t.app.inject({ method: 'GET', url: '/go/detailed+' })
    expect(signedOut.statusCode).toBe(302)
    expect(signedOut.headers.location).toBe(
      `http://switchboard.test/login?return_to=${encodeURIComponent('/go/detailed+')}`,
    )
  })
})
