/**
 * SQL for links: one link's rows and writes, the go-link lookups, tags, clicks and locks. Every
 * read for a user goes through the visibility rule (visibility.ts); the Links list's pages are in
 * list.repo.ts, links as a user sees them in visible.repo.ts.
 */
import { sql, type Insertable } from 'kysely'
import type { Executor, LinksTable, Timestamp } from '../../db/schema.js'
import { precompiled } from '../../db/precompiled.js'
import { isPostgres } from '../../db/engine.js'
import { urlKey } from '../../lib/url-key.js'
import { forwardingWithSlugKey } from './visibility.js'
import { isOwnTag } from './own-tag.repo.js'
import { asVisible, SEEN_COLUMNS, type VisibleLink } from './visible.repo.js'

/**
 * The forwarding links with this slug (lower-cased) the user sees: personal first, then by
 * organization name, then newest first.
 */
export async function findForwardingLinks(
  ex: Executor,
  userId: string,
  slugKey: string,
): Promise<VisibleLink[]> {
  return (await selectForwardingLinks(ex, { userId, slugKey })).map(asVisible)
}

/**
 * The order of a slug's forwarding links: personal first, then by organization name, then newest
 * first.
 */
const FORWARDING_ORDER = sql`case when ${sql.ref('links.organization_id')} is null then 0 else 1 end, lower(${sql.ref('organizations.name')}), ${sql.ref('links.created_at')} desc, ${sql.ref('links.id')} desc`

// The ids come from index probes that apply the visibility rule (visibility.ts
// forwardingWithSlugKey), each once; the rest is joined to them by primary key (as `in (…)`, a
// planner that overestimates the probes' rows reads every link to hash them).
const selectForwardingLinks = precompiled(['userId', 'slugKey'], (ex, p) =>
  ex
    .selectFrom(forwardingWithSlugKey(ex, p.userId, p.slugKey).as('found'))
    .innerJoin('links', 'links.id', 'found.id')
    .leftJoin('organizations', 'organizations.id', 'links.organization_id')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'links.organization_id')
        .on('organization_members.user_id', '=', p.userId),
    )
    .select(SEEN_COLUMNS)
    .orderBy(FORWARDING_ORDER),
)

/** What the go redirect needs of a link: where it goes, and whose boundary it is inside. */
export type GoCandidate = Pick<VisibleLink, 'id' | 'url' | 'organization_id'>

/**
 * The forwarding links with this slug key that the user sees, each as a GoCandidate in no
 * particular order, and the user's chosen link among them (null: none, or no link matched — the
 * caller then asks for a stale preference itself, a rare path). The chooser, shown when several
 * match, reads them whole with findForwardingLinks.
 */
export async function findGoCandidates(
  ex: Executor,
  userId: string,
  slugKey: string,
): Promise<{ links: GoCandidate[]; preferred: string | null }> {
  const rows = await selectGoCandidates(ex, { userId, slugKey })
  return {
    links: rows.map(({ id, url, organization_id }) => ({ id, url, organization_id })),
    preferred: rows[0]?.preferred_link_id ?? null,
  }
}

/** The preference's column of the go redirect's reads: the link the user chose for the slug. */
export function preferredLinkColumn(userId: string, slugKey: string) {
  return sql<
    string | null
  >`(select go_preferences.link_id from go_preferences where go_preferences.user_id = ${userId} and go_preferences.slug_key = ${slugKey})`.as(
    'preferred_link_id',
  )
}

// Compiled once (prepared on PostgreSQL). No order: the redirect needs none.
const selectGoCandidates = precompiled(['userId', 'slugKey'], (ex, p) =>
  ex
    .selectFrom(forwardingWithSlugKey(ex, p.userId, p.slugKey).as('candidates'))
    .select([
      'candidates.id',
      'candidates.url',
      'candidates.organization_id',
      preferredLinkColumn(p.userId, p.slugKey),
    ]),
)

/** What a link's owner and content are made of, as written (`url_key` follows `url`). */
export type LinkColumns = Omit<
  Insertable<LinksTable>,
  'id' | 'created_by' | 'created_at' | 'updated_at' | 'url_key'
>

/** The row's `url_key` beside its `url`, whenever the `url` is written. */
function withUrlKey<T extends { url?: string }>(row: T): T & { url_key?: string } {
  return row.url === undefined ? row : { ...row, url_key: urlKey(row.url) }
}

export async function insertLink(
  ex: Executor,
  link: LinkColumns & { id: string; created_by: string; created_at: Timestamp },
): Promise<void> {
  await ex
    .insertInto('links')
    .values(withUrlKey({ ...link, updated_at: link.created_at }))
    .execute()
}

export async function updateLink(
  ex: Executor,
  linkId: string,
  changes: Partial<LinkColumns> & { updated_at: Timestamp },
): Promise<void> {
  await ex.updateTable('links').set(withUrlKey(changes)).where('id', '=', linkId).execute()
}

export async function deleteLink(ex: Executor, linkId: string): Promise<boolean> {
  const result = await ex.deleteFrom('links').where('id', '=', linkId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Puts a deleted link's row back as it was (restore), with the slug it gets now. */
export async function insertLinkRow(ex: Executor, row: Insertable<LinksTable>): Promise<void> {
  await ex.insertInto('links').values(withUrlKey(row)).execute()
}

/** The user's own tags (id and name) on each of the links, by tag name ignoring case. */
export async function findOwnTagsOfLinks(
  ex: Executor,
  userId: string,
  linkIds: readonly string[],
): Promise<Map<string, Array<{ id: string; name: string }>>> {
  const byLink = new Map<string, Array<{ id: string; name: string }>>(linkIds.map((id) => [id, []]))
  if (linkIds.length === 0) return byLink
  const rows = await ex
    .selectFrom('link_tags')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .select(['link_tags.link_id', 'link_tags.tag_id', 'tags.name'])
    .where(isOwnTag(ex, userId))
    .where('link_tags.link_id', 'in', linkIds)
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute()
  for (const row of rows) byLink.get(row.link_id)?.push({ id: row.tag_id, name: row.name })
  return byLink
}

/** Replaces the user's own tags on the link; other users' tags on a shared link stay. */
export async function replaceOwnLinkTags(
  ex: Executor,
  userId: string,
  linkId: string,
  tagIds: readonly string[],
): Promise<void> {
  await ex
    .deleteFrom('link_tags')
    .where('link_id', '=', linkId)
    .where('tag_id', 'in', (eb) => eb.selectFrom('tags').select('id').where('user_id', '=', userId))
    .execute()
  if (tagIds.length > 0)
    await ex
      .insertInto('link_tags')
      .values(tagIds.map((tagId) => ({ link_id: linkId, tag_id: tagId })))
      .execute()
}

/** Whose links a slug or URL is unique among: one user's personal links, or one organization's. */
export type LinkOwner =
  { userId: string; organizationId: null } | { userId: null; organizationId: string }

function linksOf(ex: Executor, owner: LinkOwner) {
  const query = ex.selectFrom('links')
  return owner.organizationId === null
    ? query.where('links.user_id', '=', owner.userId)
    : query.where('links.organization_id', '=', owner.organizationId)
}

/** The id of the owner's link with this slug (lower-cased), if any. */
export async function findLinkIdBySlug(
  ex: Executor,
  owner: LinkOwner,
  slugKey: string,
): Promise<string | null> {
  const row = await linksOf(ex, owner)
    .select('links.id')
    .where('links.slug_key', '=', slugKey)
    .executeTakeFirst()
  return row?.id ?? null
}

/** The values of `column` among the owner's links that are in `values`, asked in chunks. */
async function findTaken(
  ex: Executor,
  owner: LinkOwner,
  column: 'slug_key' | 'url',
  values: readonly string[],
): Promise<Set<string>> {
  const taken = new Set<string>()
  for (let i = 0; i < values.length; i += IN_LIST_CHUNK) {
    const rows = await linksOf(ex, owner)
      .select(`links.${column} as value`)
      .where(`links.${column}`, 'in', values.slice(i, i + IN_LIST_CHUNK))
      .execute()
    for (const row of rows) if (row.value !== null) taken.add(row.value)
  }
  return taken
}

/** Which of the slugs (lower-cased) the owner's links already use. */
export function findTakenSlugKeys(
  ex: Executor,
  owner: LinkOwner,
  slugKeys: readonly string[],
): Promise<Set<string>> {
  return findTaken(ex, owner, 'slug_key', slugKeys)
}

/**
 * Of the (normalised) URLs, those the owner's links already point at, each with such a link's id
 * (the oldest's, should there be several). Read through the owner's index by URL, unordered: an
 * ORDER BY would have SQLite walk the owner's index by creation time instead, all of the owner's
 * links for every chunk (docs/decisions/0062-an-owners-links-by-url.md).
 */
export async function findLinkIdsByUrl(
  ex: Executor,
  owner: LinkOwner,
  urls: readonly string[],
): Promise<Map<string, string>> {
  const oldest = new Map<string, { id: string; created_at: Timestamp }>()
  for (let i = 0; i < urls.length; i += IN_LIST_CHUNK) {
    const rows = await linksOf(ex, owner)
      .select(['links.url', 'links.id', 'links.created_at'])
      .where('links.url', 'in', urls.slice(i, i + IN_LIST_CHUNK))
      .execute()
    for (const row of rows) {
      const known = oldest.get(row.url)
      if (known === undefined || isOlder(row, known)) oldest.set(row.url, row)
    }
  }
  return new Map([...oldest].map(([url, link]) => [url, link.id]))
}

function isOlder(
  a: { id: string; created_at: Timestamp },
  b: { id: string; created_at: Timestamp },
): boolean {
  return a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id)
}

/**
 * PostgreSQL: the planner's statistics of the tables an import writes in bulk (links, their tags,
 * the tags' counts) read afresh. Until autovacuum gets to a table that grew by thousands of rows,
 * the planner estimates from what the statistics last said — for a new instance, that an owner
 * has a few dozen links — and reads an owner's links by URL through the owner's index by creation
 * time, all of them, and a page's tags as if there were none (PostgreSQL's own advice after a bulk
 * load: run ANALYZE; docs/decisions/0062-an-owners-links-by-url.md). SQLite plans without
 * statistics and needs none.
 */
export async function refreshLinkStatistics(ex: Executor): Promise<void> {
  if (isPostgres(ex)) await sql`analyze links, link_tags, tags, tag_link_counts`.execute(ex)
}

/** Bound parameters per statement stay far below SQLite's and PostgreSQL's limits. */
const IN_LIST_CHUNK = 200

/** Inserts many links and their tags (already checked), in chunks. */
export async function insertLinks(
  ex: Executor,
  links: ReadonlyArray<LinkColumns & { id: string; created_by: string; created_at: Timestamp }>,
  linkTags: ReadonlyArray<{ link_id: string; tag_id: string }>,
): Promise<void> {
  // Each link row binds 12 parameters; 50 rows stay under SQLite's 999-parameter default.
  for (let i = 0; i < links.length; i += 50) {
    await ex
      .insertInto('links')
      .values(
        links.slice(i, i + 50).map((link) => withUrlKey({ ...link, updated_at: link.created_at })),
      )
      .execute()
  }
  for (let i = 0; i < linkTags.length; i += IN_LIST_CHUNK) {
    await ex
      .insertInto('link_tags')
      .values(linkTags.slice(i, i + IN_LIST_CHUNK))
      .execute()
  }
}

/**
 * Locks the owner's row (the user, or the organization) until the transaction ends, so two imports
 * into the same owner run one after the other and the second sees the first's links (PostgreSQL;
 * SQLite serialises writers anyway).
 */
export async function lockLinkOwner(ex: Executor, owner: LinkOwner): Promise<void> {
  if (owner.organizationId === null)
    await ex.selectFrom('users').select('id').where('id', '=', owner.userId).forUpdate().execute()
  else
    await ex
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', owner.organizationId)
      .forUpdate()
      .execute()
}

/**
 * Clicks per link since `fromDay` (YYYY-MM-DD, inclusive), for these links; a link without any is
 * absent.
 */
export async function sumClicksSince(
  ex: Executor,
  linkIds: readonly string[],
  fromDay: string,
): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map()
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['link_id', (eb) => eb.fn.sum<number | string>('clicks').as('clicks')])
    .where('link_id', 'in', linkIds)
    .where('day', '>=', fromDay)
    .groupBy('link_id')
    .execute()
  return new Map(rows.map((row) => [row.link_id, Number(row.clicks)]))
}

/** The link's clicks per day since `fromDay`, by day; days without clicks are absent. */
export async function findDailyClicks(
  ex: Executor,
  linkId: string,
  fromDay: string,
): Promise<{ day: string; clicks: number }[]> {
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['day', 'clicks'])
    .where('link_id', '=', linkId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute()
  return rows.map((row) => ({ day: row.day, clicks: Number(row.clicks) }))
}

/** Every kept day's clicks of these links (for the export), each link's by day. */
export async function findClicksOfLinks(
  ex: Executor,
  linkIds: readonly string[],
): Promise<Map<string, { day: string; clicks: number }[]>> {
  const byLink = new Map<string, { day: string; clicks: number }[]>()
  if (linkIds.length === 0) return byLink
  const rows = await ex
    .selectFrom('link_clicks')
    .select(['link_id', 'day', 'clicks'])
    .where('link_id', 'in', linkIds)
    .orderBy('link_id')
    .orderBy('day')
    .execute()
  for (const row of rows) {
    const days = byLink.get(row.link_id) ?? []
    days.push({ day: row.day, clicks: Number(row.clicks) })
    byLink.set(row.link_id, days)
  }
  return byLink
}

/** Puts the tag on each link that lacks it. */
export async function addTagToLinks(
  ex: Executor,
  tagId: string,
  linkIds: readonly string[],
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .insertInto('link_tags')
    .values(linkIds.map((linkId) => ({ link_id: linkId, tag_id: tagId })))
    .onConflict((oc) => oc.columns(['link_id', 'tag_id']).doNothing())
    .execute()
}

export async function removeTagFromLinks(
  ex: Executor,
  tagId: string,
  linkIds: readonly string[],
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .deleteFrom('link_tags')
    .where('tag_id', '=', tagId)
    .where('link_id', 'in', linkIds)
    .execute()
}

/** Moves the links to an organization, or (null) makes them `userId`'s personal links. */
export async function moveLinks(
  ex: Executor,
  linkIds: readonly string[],
  to: LinkOwner,
  now: Timestamp,
): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .updateTable('links')
    .set({ organization_id: to.organizationId, user_id: to.userId, updated_at: now })
    .where('id', 'in', linkIds)
    .execute()
}

/**
 * Locks the links (FOR UPDATE, PostgreSQL; SQLite serialises writers) in id order, whatever the
 * order they were asked in: every writer of several links — a bulk action, a collection's PUT
 * (collections/repo.ts lockLinksOfCollection) — takes its link locks in this one order, so two of
 * them wait for each other instead of deadlocking.
 */
export async function lockLinksInIdOrder(ex: Executor, linkIds: readonly string[]): Promise<void> {
  const sorted = [...new Set(linkIds)].sort()
  for (let i = 0; i < sorted.length; i += IN_LIST_CHUNK) {
    await ex
      .selectFrom('links')
      .select('id')
      .where('id', 'in', sorted.slice(i, i + IN_LIST_CHUNK))
      .orderBy('id')
      .forUpdate()
      .execute()
  }
}
