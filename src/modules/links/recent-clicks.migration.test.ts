/**
 * Migration 0121 (each link's clicks of the last 30 days kept on it): the links clicked before it
 * get their counts from the clicks per day, only the window's days, and the most-clicked order
 * lists them by those counts at once; down removes the counts, their indexes and the window.
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { down, up } from '../../migrations/0121_link_recent_clicks.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const DAY_MS = 86_400_000
const dayAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10)

describe('migration 0121 (recent clicks kept on the link)', () => {
  it('counts the clicks of the last 30 days written before it; down removes what it added', async () => {
    const db = t.deps.db as unknown as Kysely<unknown>
    const user = await createSignedInUser(t)
    const links = []
    for (const name of ['old', 'recent', 'both', 'none'])
      links.push(await createLink(t, user.token, { url: `https://${name}.example/` }))
    const [old, recent, both, none] = links.map((link) => link.id) as [
      string,
      string,
      string,
      string,
    ]
    await down(db)
    const tables = await t.deps.db.introspection.getTables()
    expect(tables.map((table) => table.name)).not.toContain('link_click_window')
    const linkColumns = tables.find((table) => table.name === 'links')!.columns
    expect(linkColumns.map((column) => column.name)).not.toContain('recent_clicks')
    // As the redirects' counter wrote them before: the clicks per day only.
    await t.deps.db
      .insertInto('link_clicks')
      .values([
        { link_id: old, day: dayAgo(30), clicks: 50 },
        { link_id: recent, day: dayAgo(29), clicks: 3 },
        { link_id: recent, day: dayAgo(0), clicks: 4 },
        { link_id: both, day: dayAgo(45), clicks: 90 },
        { link_id: both, day: dayAgo(1), clicks: 5 },
      ])
      .execute()
    await up(db)
    const { rows } = await sql<{ id: string; recent_clicks: number }>`select id, recent_clicks
      from links where id in (${sql.join(links.map((link) => link.id))})`.execute(t.deps.db)
    expect(Object.fromEntries(rows.map((row) => [row.id, Number(row.recent_clicks)]))).toEqual({
      [old]: 0,
      [recent]: 7,
      [both]: 5,
      [none]: 0,
    })
    const listed = await t.app.inject({
      method: 'GET',
      url: '/api/links?sort=clicks_30d',
      headers: bearer(user.token),
    })
    expect(
      listed
        .json<{ items: { id: string; clicks_30d: number }[] }>()
        .items.map((item) => [item.id, item.clicks_30d]),
    ).toEqual([
      [recent, 7],
      [both, 5],
      ...[old, none]
        .sort()
        .reverse()
        .map((id) => [id, 0]),
    ])
  })
})
