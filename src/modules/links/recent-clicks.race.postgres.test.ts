/**
 * Two instances on one PostgreSQL database keeping the links' counts of recent clicks at the same
 * moment: of several moving the window's first day at once, one takes the day off; clicks written
 * by both meanwhile, to the same link, all count. (SQLite takes one writer at a time.)
 */
import { describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { startPeerInstance, useTestApp } from '../../../test/helpers/app.js'
import { createSignedInUser } from '../../../test/helpers/factories.js'
import { createLink } from '../../../test/helpers/links.js'
import type { Db } from '../../db/schema.js'
import { addClicks, findWindowStart, moveWindowStart } from './recent-clicks.repo.js'
import { firstDayOfLast, RECENT_CLICK_DAYS } from './recent-clicks.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
const DAY_SECONDS = 86_400

const today = () => t.clock.now().toISOString().slice(0, 10)

const add = (db: Db, linkId: string, clicks: number) =>
  db.transaction().execute((tx) => addClicks(tx, [{ link_id: linkId, day: today(), clicks }]))

/** The link's count, and the sum of its clicks since the window's first day. */
async function countAndSum(linkId: string): Promise<[number, number]> {
  const first = await findWindowStart(t.deps.db)
  const { rows } = await sql<{ count: number; sum: string | null }>`
    select links.recent_clicks as count, (select sum(clicks) from link_clicks
      where link_clicks.link_id = links.id and link_clicks.day >= ${first}) as sum
    from links where links.id = ${linkId}`.execute(t.deps.db)
  return [Number(rows[0]!.count), Number(rows[0]!.sum ?? 0)]
}

describe('recent clicks kept by two instances at once', () => {
  it('takes a day off once when both move the window, and counts the clicks written meanwhile', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { url: 'https://both.example/' })
    await add(t.deps.db, link.id, 4)
    t.clock.advance(2 * DAY_SECONDS)
    await add(t.deps.db, link.id, 6)
    const peer = await startPeerInstance(t)
    try {
      t.clock.advance(29 * DAY_SECONDS)
      const firstDay = firstDayOfLast(RECENT_CLICK_DAYS, t.clock.now())
      const dbs = [t.deps.db, peer.deps.db, t.deps.db, peer.deps.db]
      const [moved] = await Promise.all([
        Promise.all(
          dbs.map((db) => db.transaction().execute((tx) => moveWindowStart(tx, firstDay))),
        ),
        Promise.all(dbs.map((db) => add(db, link.id, 1))),
      ])
      expect(moved.filter(Boolean)).toHaveLength(1)
      expect(await findWindowStart(t.deps.db)).toBe(firstDay)
      // The first day's 4 taken off once; the second day's 6 and today's 4 kept.
      expect(await countAndSum(link.id)).toEqual([10, 10])
    } finally {
      await peer.close()
    }
  })

  it('adds up the clicks both write to one link at once', async () => {
    const user = await createSignedInUser(t)
    const link = await createLink(t, user.token, { url: 'https://busy.example/' })
    const peer = await startPeerInstance(t)
    try {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          add(i % 2 === 0 ? t.deps.db : peer.deps.db, link.id, 1),
        ),
      )
      expect(await countAndSum(link.id)).toEqual([20, 20])
    } finally {
      await peer.close()
    }
  })
})
