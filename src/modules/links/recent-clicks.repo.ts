/**
 * A link's clicks of the last 30 UTC days, kept on the link (`links.recent_clicks`) beside the
 * clicks per day (`link_clicks`): every write of clicks adds to both in one transaction, and when
 * the window's first day moves on, the days it leaves are taken off the links they count for. The
 * most-clicked order reads the owners' indexes over the count
 * (docs/decisions/0085-recent-clicks-kept-on-the-link.md).
 */
import { sql } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import type { Executor } from '../../db/schema.js'

export interface DayClicks {
  link_id: string
  /** YYYY-MM-DD, UTC. */
  day: string
  clicks: number
}

/** Rows a statement: 3 parameters each stay far below SQLite's limit. */
const BATCH = 500

/**
 * Adds the clicks to their links' days and, for the days the counts cover, to their links' counts;
 * a link that no longer exists fails the statement (a foreign key violation). Run it in a
 * transaction, so that the two stay equal.
 */
export async function addClicks(ex: Executor, rows: readonly DayClicks[]): Promise<void> {
  const firstDay = (await findWindowStart(ex)) ?? ''
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH)
    await ex
      .insertInto('link_clicks')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['link_id', 'day']).doUpdateSet((eb) => ({
          clicks: eb('link_clicks.clicks', '+', eb.ref('excluded.clicks')),
        })),
      )
      .execute()
    const byLink = new Map<string, number>()
    for (const row of batch)
      if (row.day >= firstDay) byLink.set(row.link_id, (byLink.get(row.link_id) ?? 0) + row.clicks)
    if (byLink.size === 0) continue
    // One parameter, the links and their clicks as a JSON object, whatever their number.
    const added = JSON.stringify(Object.fromEntries(byLink))
    const each = isPostgres(ex)
      ? sql`jsonb_each_text(cast(${added} as jsonb))`
      : sql`json_each(${added})`
    // An addition, not a value read first: instances writing at once each add their own.
    await sql`update links set recent_clicks = links.recent_clicks + cast(added.value as integer)
      from ${each} as added where links.id = added.key`.execute(ex)
  }
}

/** The first day the counts cover now; null before the first (the migration writes it). */
export async function findWindowStart(ex: Executor): Promise<string | null> {
  const row = await ex
    .selectFrom('link_click_window')
    .select('first_day')
    .where('id', '=', 1)
    .executeTakeFirst()
  return row?.first_day ?? null
}

/**
 * Moves the counts' first day on to `firstDay`: the clicks of the days in between are taken off
 * their links. Where the counts already start there or later (another instance moved them first,
 * or this one's clock is behind), nothing changes. Run it in a transaction: the window's row is
 * moved first, by its old value, so that of two instances moving it at once only one takes the
 * days off. The clicks of those days are not written any more (they are past), so this subtraction
 * and the additions of new clicks never touch the same day and add up in any order.
 */
export async function moveWindowStart(ex: Executor, firstDay: string): Promise<boolean> {
  const from = await findWindowStart(ex)
  if (from === null || from >= firstDay) return false
  const moved = await ex
    .updateTable('link_click_window')
    .set({ first_day: firstDay })
    .where('id', '=', 1)
    .where('first_day', '=', from)
    .executeTakeFirst()
  if (Number(moved.numUpdatedRows) === 0) return false
  const leaving = sql`link_clicks.day >= ${from} and link_clicks.day < ${firstDay}`
  await ex
    .updateTable('links')
    .set({
      recent_clicks: sql`links.recent_clicks - (select sum(link_clicks.clicks) from link_clicks
        where link_clicks.link_id = links.id and ${leaving})`,
    })
    .where(sql<boolean>`links.id in (select link_clicks.link_id from link_clicks where ${leaving})`)
    .execute()
  return true
}

/** Sets the link's count from its clicks since the window's first day (a restored link's). */
export async function recountRecentClicks(ex: Executor, linkId: string): Promise<void> {
  await ex
    .updateTable('links')
    .set({
      recent_clicks: sql`coalesce((select sum(link_clicks.clicks) from link_clicks
        where link_clicks.link_id = links.id
          and link_clicks.day >= (select first_day from link_click_window where id = 1)), 0)`,
    })
    .where('links.id', '=', linkId)
    .execute()
}
