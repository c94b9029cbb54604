/** SQL for tags. Every statement is scoped to the owning user: another user's tag is not found. */
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import type { Executor, TagsTable, Timestamp } from '../../db/schema.js'
import { keyset, type PageWindow } from '../../db/keyset.js'
import { anyContains } from '../../db/text-search.js'
import { isPostgres } from '../../db/engine.js'
import { organizationIdsOf, teamLinkIds } from '../links/visibility.js'

export type TagRecord = Omit<Selectable<TagsTable>, 'user_id' | 'name_key'> & { link_count: number }

/** The user's own tags, without their counts. */
function ownTags(ex: Executor, userId: string) {
  return ex
    .selectFrom('tags')
    .select([
      'tags.id',
      'tags.name',
      'tags.name_key',
      'tags.color',
      'tags.created_at',
      'tags.updated_at',
    ])
    .where('tags.user_id', '=', userId)
}

type TagRow = Omit<TagRecord, 'link_count'> & { name_key: string }

/**
 * How many links carry each of these tags that their owner can see — theirs, their organizations',
 * and those shared with their teams — within `reachable`, an API token's organization boundary when
 * given (links of other organizations do not count, so a token does not learn how many links it
 * may not read). A tag stays on a shared link after its owner loses sight of it, and counts again
 * if they regain it.
 *
 * Their own links and their organizations' are counted from `tag_link_counts` (a few rows per tag,
 * kept by triggers: migration 0122), whatever the number of links; the links shared with their
 * teams, which no stored count can follow, are read from those links and their tags, so that part
 * grows with what the teams share, not with the tagged links
 * (docs/decisions/0086-tag-link-counts-kept-by-owner.md).
 */
async function countLinks(
  ex: Executor,
  userId: string,
  tagIds: readonly string[],
  reachable?: ReadonlySet<string>,
): Promise<Map<string, number>> {
  if (tagIds.length === 0) return new Map()
  const { rows } = await sql<{ tag_id: string; n: number | string }>`
    ${storedCounts(userId, tagIds, reachable)}
    union all
    ${sharedTaggings(ex, userId, reachable)}`.execute(ex)
  // The shared part holds all the person's tags on shared links; the caller reads the page's.
  const counts = new Map<string, number>()
  // PostgreSQL answers bigint as text; both engines give a number here.
  for (const row of rows) counts.set(row.tag_id, (counts.get(row.tag_id) ?? 0) + Number(row.n))
  return counts
}

/** Only the organizations `reachable` holds, when given: `column` in them. */
function withinBoundary(column: string, reachable?: ReadonlySet<string>): RawBuilder<boolean> {
  if (reachable === undefined) return sql<boolean>`true`
  if (reachable.size === 0) return sql<boolean>`false`
  return sql<boolean>`${sql.ref(column)} in (${sql.join([...reachable])})`
}

/** The stored counts of the tags on the person's own links and their organizations'. */
function storedCounts(userId: string, tagIds: readonly string[], reachable?: ReadonlySet<string>) {
  const owner = 'tag_link_counts.owner_id'
  return sql`select tag_link_counts.tag_id, tag_link_counts.link_count as n from tag_link_counts
    where tag_link_counts.tag_id in (${sql.join(tagIds)})
      and (${sql.ref(owner)} = ${userId} or (${sql.ref(owner)} in (${organizationIdsOf(userId)})
        and ${withinBoundary(owner, reachable)}))`
}

/**
 * One row per tag of the person's on a link shared with their teams that is neither theirs nor
 * their organizations' (those are stored). SQLite: CROSS JOIN keeps the shared links first, read
 * by key, as PostgreSQL plans it from the array; the person's tags first would read every link
 * they tagged.
 */
function sharedTaggings(ex: Executor, userId: string, reachable?: ReadonlySet<string>) {
  const postgres = isPostgres(ex)
  const shared = postgres
    ? sql<boolean>`link_tags.link_id = any(array(${teamLinkIds(userId)}))`
    : sql<boolean>`link_tags.link_id in (${teamLinkIds(userId)})`
  return sql`select link_tags.tag_id, 1 from link_tags
    ${postgres ? sql`inner join` : sql`cross join`} tags on tags.id = link_tags.tag_id
    inner join links on links.id = link_tags.link_id
    where ${shared} and tags.user_id = ${userId}
      and ((links.organization_id is null and links.user_id <> ${userId})
        or (links.organization_id not in (${organizationIdsOf(userId)})
          and ${withinBoundary('links.organization_id', reachable)}))`
}

async function withLinkCounts(
  ex: Executor,
  userId: string,
  rows: readonly TagRow[],
  reachable?: ReadonlySet<string>,
): Promise<Array<TagRecord & { name_key: string }>> {
  const counts = await countLinks(
    ex,
    userId,
    rows.map((row) => row.id),
    reachable,
  )
  return rows.map(({ id, name, name_key, color, created_at, updated_at }) => ({
    id,
    name,
    color,
    link_count: counts.get(id) ?? 0,
    created_at,
    updated_at,
    name_key,
  }))
}

export async function findTag(
  ex: Executor,
  userId: string,
  tagId: string,
  reachable?: ReadonlySet<string>,
): Promise<TagRecord | null> {
  const row = await ownTags(ex, userId).where('tags.id', '=', tagId).executeTakeFirst()
  if (row === undefined) return null
  const [counted] = await withLinkCounts(ex, userId, [row], reachable)
  const { name_key: _key, ...tag } = counted!
  return tag
}

/**
 * The user's tags by name ignoring case — the unique key, lower-cased — then id. `containing`
 * (a lower-cased name key) keeps the names that contain it: read along the unique index on
 * (user_id, name_key), within the user's own tags, in the page's order, so the scan stops once a
 * page is full (docs/decisions/0051-tag-search.md).
 */
export async function listTags(
  ex: Executor,
  userId: string,
  window: PageWindow,
  filter: { containing?: string; reachable?: ReadonlySet<string> } = {},
): Promise<Array<TagRecord & { name_key: string }>> {
  const own = ownTags(ex, userId)
  const query =
    filter.containing === undefined
      ? own
      : own.where(anyContains(['tags.name_key'], filter.containing))
  const rows = await keyset(query, window, {
    column: 'name_key',
    table: 'tags',
    direction: 'asc',
  }).execute()
  return withLinkCounts(ex, userId, rows, filter.reachable)
}

/**
 * Those of `tagIds` that are the user's own tags, by name ignoring case, then id: probes of the
 * primary key, each kept only when the user owns it, so another user's id is simply absent.
 */
export async function findTagsByIds(
  ex: Executor,
  userId: string,
  tagIds: readonly string[],
  reachable?: ReadonlySet<string>,
): Promise<TagRecord[]> {
  const rows = await ownTags(ex, userId)
    .where('tags.id', 'in', tagIds)
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute()
  const counted = await withLinkCounts(ex, userId, rows, reachable)
  return counted.map(({ name_key: _key, ...tag }) => tag)
}

export type NewTag = Omit<Insertable<TagsTable>, 'updated_at'>

export async function insertTag(ex: Executor, tag: NewTag): Promise<void> {
  await ex
    .insertInto('tags')
    .values({ ...tag, updated_at: tag.created_at })
    .execute()
}

export async function updateTag(
  ex: Executor,
  userId: string,
  tagId: string,
  changes: { name?: string; name_key?: string; color?: string | null; updated_at: Timestamp },
): Promise<boolean> {
  const result = await ex
    .updateTable('tags')
    .set(changes)
    .where('id', '=', tagId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deleteTag(ex: Executor, userId: string, tagId: string): Promise<boolean> {
  const result = await ex
    .deleteFrom('tags')
    .where('id', '=', tagId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Which of `tagIds` are the user's own tags. */
export async function findOwnTagIds(
  ex: Executor,
  userId: string,
  tagIds: readonly string[],
): Promise<string[]> {
  if (tagIds.length === 0) return []
  const rows = await ex
    .selectFrom('tags')
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', tagIds)
    .execute()
  return rows.map((row) => row.id)
}

/** The user's tags with these lower-cased names: name key → the tag's id and name as written. */
export async function findTagsByNameKeys(
  ex: Executor,
  userId: string,
  nameKeys: readonly string[],
): Promise<Map<string, { id: string; name: string }>> {
  const found = new Map<string, { id: string; name: string }>()
  for (let i = 0; i < nameKeys.length; i += 200) {
    const rows = await ex
      .selectFrom('tags')
      .select(['id', 'name', 'name_key'])
      .where('user_id', '=', userId)
      .where('name_key', 'in', nameKeys.slice(i, i + 200))
      .execute()
    for (const row of rows) found.set(row.name_key, { id: row.id, name: row.name })
  }
  return found
}

/** Inserts tags, leaving out any whose name the user took meanwhile (unique (user, name_key)). */
export async function insertTagsUnlessTaken(ex: Executor, tags: readonly NewTag[]): Promise<void> {
  for (let i = 0; i < tags.length; i += 100) {
    await ex
      .insertInto('tags')
      .values(tags.slice(i, i + 100).map((tag) => ({ ...tag, updated_at: tag.created_at })))
      .onConflict((conflict) => conflict.columns(['user_id', 'name_key']).doNothing())
      .execute()
  }
}
