/**
 * Each link's count of its clicks in the last 30 UTC days (`links.recent_clicks`, the most-clicked
 * order's key) stays equal to the sum of its clicks per day since the window's first day: through
 * clicks written on several days (as the redirects' counter writes them: go/clicks.routes.test.ts
 * shows its flush keeps the count), the window moving on at midnight, a deletion and a restore.
 * Two instances at once: recent-clicks.race.postgres.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { useTestApp } from '../../../test/helpers/app.js'
import { bearer, createSignedInUser, login } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import { statementsOf } from '../../../test/helpers/query-plans.js'
import { addClicks, findWindowStart } from './recent-clicks.repo.js'
import { firstDayOfLast, keepRecentClicksCurrent, RECENT_CLICK_DAYS } from './recent-clicks.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const DAY_SECONDS = 86_400

const today = () => t.clock.now().toISOString().slice(0, 10)

/** Each of these links' count, and the sum of its clicks since the window's first day. */
async function countsAndSums(ids: string[]) {
  const first = await findWindowStart(t.deps.db)
  const rows = await sql<{ id: string; count: number | string; sum: number | string }>`
    select links.id, links.recent_clicks as count, coalesce((select sum(clicks) from link_clicks
      where link_clicks.link_id = links.id and link_clicks.day >= ${first}), 0) as sum
    from links where links.id in (${sql.join(ids)}) order by links.id`.execute(t.deps.db)
  return rows.rows.map((row) => ({ id: row.id, count: Number(row.count), sum: Number(row.sum) }))
}

async function expectCountsEqualSums(ids: string[], expected: Record<string, number>) {
  const rows = await countsAndSums(ids)
  for (const row of rows) expect(row.count, row.id).toBe(row.sum)
  expect(Object.fromEntries(rows.map((row) => [row.id, row.count]))).toEqual(expected)
}

const add = (rows: Array<[string, number]>, day = today()) =>
  t.deps.db.transaction().execute((tx) =>
    addClicks(
      tx,
      rows.map(([link_id, clicks]) => ({ link_id, day, clicks })),
    ),
  )

describe('a link’s count of its recent clicks', () => {
  it('counts clicks as they are written, and drops each day when it leaves the 30 days', async () => {
    const user = await createSignedInUser(t)
    const links = await Promise.all(
      ['a', 'b', 'c'].map((name) => createLink(t, user.token, { url: `https://${name}.example/` })),
    )
    const [a, b, c] = links.map((link) => link.id) as [string, string, string]
    await add([
      [a, 3],
      [b, 5],
    ])
    await keepRecentClicksCurrent(t.deps.db, t.clock.now())
    await expectCountsEqualSums([a, b, c], { [a]: 3, [b]: 5, [c]: 0 })

    // Ten days on: more clicks, the first day still in the window.
    t.clock.advance(10 * DAY_SECONDS)
    await keepRecentClicksCurrent(t.deps.db, t.clock.now())
    await add([
      [b, 2],
      [c, 7],
    ])
    await expectCountsEqualSums([a, b, c], { [a]: 3, [b]: 7, [c]: 7 })

    // Thirty days after the first: its clicks leave the window, the later ones stay.
    t.clock.advance(20 * DAY_SECONDS)
    await keepRecentClicksCurrent(t.deps.db, t.clock.now())
    expect(await findWindowStart(t.deps.db)).toBe(firstDayOfLast(RECENT_CLICK_DAYS, t.clock.now()))
    await expectCountsEqualSums([a, b, c], { [a]: 0, [b]: 2, [c]: 7 })

    // Once a day: a second call the same day reads nothing.
    const reads = await statementsOf(/link_click_window/, () =>
      keepRecentClicksCurrent(t.deps.db, t.clock.now()),
    )
    expect(reads).toEqual([])
  })

  it('comes back with a restored link, and counts only its days in the window', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { url: 'https://restored.example/' })
    await add([[link.id, 9]])
    t.clock.advance(DAY_SECONDS)
    await add([[link.id, 1]])
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/links/${link.id}`,
      headers: bearer((await login(t, user.email, user.password!)).token),
    })
    expect(deleted.statusCode).toBe(204)
    // The first day leaves the window while the link is deleted (its session with it).
    t.clock.advance(29 * DAY_SECONDS)
    await keepRecentClicksCurrent(t.deps.db, t.clock.now())
    const { token } = await login(t, user.email, user.password!)
    const restored = await t.app.inject({
      method: 'POST',
      url: `/api/links/deleted/${link.id}/restore`,
      headers: bearer(token),
      payload: {},
    })
    expect(restored.statusCode).toBe(200)
    expect(restored.json()).toMatchObject({ id: link.id, clicks_30d: 1 })
    await expectCountsEqualSums([link.id], { [link.id]: 1 })
  })
})
