/**
 * What a link view adds to a page of link rows (service.ts toView): the reader's own tags, the
 * clicks since a day, the teams the link is shared with, the reader's teams that see it and the
 * reader's pins — one statement for the whole page, compiled once, the page's ids bound as one
 * value (a JSON array on SQLite, a text array on PostgreSQL), so its text is the same for every
 * page (docs/decisions/0055-links-page-one-read-for-its-extras.md).
 */
import { sql, type RawBuilder } from 'kysely'
import { isPostgres } from '../../db/engine.js'
import { compiledOnce } from '../../db/precompiled.js'
import type { Executor } from '../../db/schema.js'
import { isOwnTag } from './own-tag.repo.js'

export interface ViewExtras {
  /** The reader's own tags on each link, by tag name ignoring case. */
  tagIds: Map<string, string[]>
  /** Clicks since the day; a link without any is absent. */
  clicks: Map<string, number>
  /** The teams each link is shared with, by name. */
  teamIds: Map<string, string[]>
  /** The names of the reader's teams that see each link (shared with it, or by a collection). */
  seenByTeams: Map<string, string[]>
  /** The links the reader pinned. */
  pinned: Set<string>
}

interface ExtraRow {
  kind: 'clicks' | 'pin' | 'seen' | 'tag' | 'team'
  link_id: string
  value: string | null
}

/**
 * True where `column` is one of the page's ids. On PostgreSQL the ids are a set joined to the
 * table — hashed, or each probed by key — not compared with `= any($ids)`: in the plan for any
 * page, which the prepared statement keeps, a parameter array is compared element by element
 * with each row read, and at a few thousand links the planner reads the small tables whole so
 * (docs/decisions/0080-a-page-of-ids-by-key.md).
 */
function inPage(ex: Executor, column: string, ids: string): RawBuilder<boolean> {
  return isPostgres(ex)
    ? sql<boolean>`${sql.ref(column)} in (select unnest(cast(${ids} as text[])))`
    : sql<boolean>`${sql.ref(column)} in (select value from json_each(${ids}))`
}

// Each kind's rows come in its order (k1, k2): tags by name then id, teams by name.
const selectExtras = compiledOnce(['userId', 'ids', 'fromDay'], (ex, p) => {
  const page = (column: string) => inPage(ex, column, p.ids)
  const query = sql<ExtraRow>`select 'tag' as kind, link_tags.link_id, link_tags.tag_id as value,
      tags.name_key as k1, tags.id as k2
    from link_tags inner join tags on tags.id = link_tags.tag_id
    where ${isOwnTag(ex, p.userId)} and ${page('link_tags.link_id')}
  union all
  select 'clicks', link_clicks.link_id, cast(sum(link_clicks.clicks) as text), null, null
    from link_clicks
    where ${page('link_clicks.link_id')} and link_clicks.day >= ${p.fromDay}
    group by link_clicks.link_id
  union all
  select 'team', link_teams.link_id, teams.id, teams.name_key, teams.id
    from link_teams inner join teams on teams.id = link_teams.team_id
    where ${page('link_teams.link_id')}
  union all
  select 'seen', link_teams.link_id, teams.name, teams.name_key, teams.id
    from team_members
    inner join link_teams on link_teams.team_id = team_members.team_id
    inner join teams on teams.id = team_members.team_id
    where team_members.user_id = ${p.userId} and ${page('link_teams.link_id')}
  union all
  select 'seen', collection_links.link_id, teams.name, teams.name_key, teams.id
    from team_members
    inner join collection_teams on collection_teams.team_id = team_members.team_id
    inner join collection_links on collection_links.collection_id = collection_teams.collection_id
    inner join teams on teams.id = team_members.team_id
    where team_members.user_id = ${p.userId} and ${page('collection_links.link_id')}
  union all
  select 'pin', link_pins.link_id, null, null, null
    from link_pins
    where link_pins.user_id = ${p.userId} and ${page('link_pins.link_id')}
  order by 1, 4, 5`
  return { compile: () => query.compile(ex) }
})

function push(map: Map<string, string[]>, linkId: string, value: string): void {
  const values = map.get(linkId)
  if (values === undefined) map.set(linkId, [value])
  else values.push(value)
}

/** The extras of the links (`fromDay`: YYYY-MM-DD, the first day whose clicks count). */
export async function findViewExtras(
  ex: Executor,
  userId: string,
  linkIds: readonly string[],
  fromDay: string,
): Promise<ViewExtras> {
  const extras: ViewExtras = {
    tagIds: new Map(),
    clicks: new Map(),
    teamIds: new Map(),
    seenByTeams: new Map(),
    pinned: new Set(),
  }
  if (linkIds.length === 0) return extras
  const ids = isPostgres(ex) ? linkIds : JSON.stringify(linkIds)
  for (const row of await selectExtras(ex, { userId, ids, fromDay })) {
    if (row.kind === 'pin') extras.pinned.add(row.link_id)
    else if (row.kind === 'clicks') extras.clicks.set(row.link_id, Number(row.value))
    else if (row.kind === 'tag') push(extras.tagIds, row.link_id, row.value!)
    else if (row.kind === 'team') push(extras.teamIds, row.link_id, row.value!)
    else if (!extras.seenByTeams.get(row.link_id)?.includes(row.value!))
      // A team that sees the link two ways (shared, and by a collection) is named once.
      push(extras.seenByTeams, row.link_id, row.value!)
  }
  return extras
}
