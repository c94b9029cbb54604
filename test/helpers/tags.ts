/**
 * Tags by the thousand, inserted straight into the database: the other people's tags beside the
 * caller's that the tag reads' index tests need (made through the API they would take minutes).
 * And the tags' kept link counts beside the tags on links they count.
 */
import { sql } from 'kysely'
import type { TestContext } from './app.js'
import { bareUserRow } from './factories.js'

/** `count` tags of the user, named `name(0)` …, with the ids `<userId>-tag-<i>`. */
export async function insertTags(
  t: TestContext,
  userId: string,
  count: number,
  name: (i: number) => string,
): Promise<void> {
  const now = new Date().toISOString()
  for (let start = 0; start < count; start += 250) {
    const rows = Array.from({ length: Math.min(250, count - start) }, (_, i) => {
      const tagName = name(start + i)
      return {
        id: `${userId}-tag-${start + i}`,
        user_id: userId,
        name: tagName,
        name_key: tagName.toLowerCase(),
        color: null,
        created_at: now,
        updated_at: now,
      }
    })
    await t.deps.db.insertInto('tags').values(rows).execute()
  }
}

/** `count` people (`stranger-0` …, rows only), each with `tagsEach` tags named as insertTags. */
export async function insertStrangersWithTags(
  t: TestContext,
  count: number,
  tagsEach: number,
  name: (i: number) => string,
): Promise<void> {
  const now = new Date().toISOString()
  for (let i = 0; i < count; i++) {
    const userId = `stranger-${i}`
    await t.deps.db.insertInto('users').values(bareUserRow(userId, now)).execute()
    await insertTags(t, userId, tagsEach, name)
  }
}

/**
 * The kept counts (`tag_link_counts`, without the rows at zero) and the tags on links grouped by
 * the links' owner, each as sorted "<tag> <owner> <count>" lines: equal while the triggers keep
 * the counts.
 */
export async function keptAndGroupedTagCounts(t: TestContext): Promise<[string[], string[]]> {
  const kept = await sql<{ row: string }>`select tag_id || ' ' || owner_id || ' ' || link_count
    as row from tag_link_counts where link_count <> 0 order by 1`.execute(t.deps.db)
  const grouped = await sql<{ row: string }>`select link_tags.tag_id || ' '
      || coalesce(links.organization_id, links.user_id) || ' ' || count(*) as row
    from link_tags inner join links on links.id = link_tags.link_id
    group by link_tags.tag_id, coalesce(links.organization_id, links.user_id) order by 1`.execute(
    t.deps.db,
  )
  return [kept.rows.map((r) => r.row), grouped.rows.map((r) => r.row)]
}
