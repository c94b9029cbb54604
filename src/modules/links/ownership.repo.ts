/** SQL for a link's ownership: transfer, and recently deleted links kept 30 days, restorable. */
import { sql, type RawBuilder, type Selectable } from 'kysely'
import { visibleTo } from './visibility.js'
import type { DeletedLinksTable, Executor, Timestamp } from '../../db/schema.js'
import { newestFirst, type PageWindow } from '../../db/keyset.js'
import { can, ROLES, type Role } from '../organizations/roles.js'
import { recountRecentClicks } from './recent-clicks.repo.js'

export type DeletedLinkRecord = Selectable<DeletedLinksTable>

/** What a deleted link keeps besides its visible columns (JSON in `snapshot`). */
export interface LinkSnapshot {
  slug_key: string | null
  forwarding_enabled: boolean
  created_at: Timestamp
  updated_at: Timestamp
  tag_ids: string[]
  clicks: { day: string; clicks: number }[]
}

/** The link row, its tags and clicks as they are now (inside the deleting transaction). */
export async function readLinkForSnapshot(ex: Executor, linkId: string) {
  const link = await ex
    .selectFrom('links')
    .select([
      'id',
      'user_id',
      'organization_id',
      'created_by',
      'url',
      'title',
      'slug',
      'slug_key',
      'forwarding_enabled',
      'created_at',
      'updated_at',
    ])
    .where('id', '=', linkId)
    .executeTakeFirst()
  if (link === undefined) return null
  const tags = await ex
    .selectFrom('link_tags')
    .select('tag_id')
    .where('link_id', '=', linkId)
    .execute()
  const clicks = await ex
    .selectFrom('link_clicks')
    .select(['day', 'clicks'])
    .where('link_id', '=', linkId)
    .orderBy('day')
    .execute()
  const snapshot: LinkSnapshot = {
    slug_key: link.slug_key,
    forwarding_enabled: Boolean(link.forwarding_enabled),
    created_at: link.created_at,
    updated_at: link.updated_at,
    tag_ids: tags.map((tag) => tag.tag_id),
    clicks: clicks.map((row) => ({ day: row.day, clicks: Number(row.clicks) })),
  }
  return { link, snapshot }
}

export async function insertDeletedLink(ex: Executor, row: DeletedLinkRecord): Promise<void> {
  await ex.insertInto('deleted_links').values(row).execute()
}

/** The roles that may change any of an organization's links (roles.ts `manage_links`). */
const MANAGING_ROLES: Role[] = ROLES.filter((role) => can(role, 'manage_links'))

/**
 * Deleted links the user may restore: their personal ones, and their organizations' that they
 * created or, as an owner or admin, manage — newer than `since`.
 */
function restorableBy(ex: Executor, userId: string, since: Timestamp) {
  return ex
    .selectFrom('deleted_links')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'deleted_links.organization_id')
        .on('organization_members.user_id', '=', userId),
    )
    .selectAll('deleted_links')
    .select('organization_members.role')
    .where('deleted_links.deleted_at', '>=', since)
    .where((eb) =>
      eb.or([
        eb('deleted_links.user_id', '=', userId),
        eb.and([
          eb('organization_members.user_id', '=', userId),
          eb.or([
            eb('deleted_links.created_by', '=', userId),
            eb('organization_members.role', 'in', MANAGING_ROLES),
          ]),
        ]),
      ]),
    )
}

export async function listRestorable(
  ex: Executor,
  userId: string,
  since: Timestamp,
  window: PageWindow,
  reachable: ReadonlySet<string> | null,
): Promise<DeletedLinkRecord[]> {
  let query = restorableBy(ex, userId, since)
  if (reachable !== null) {
    const ids = [...reachable]
    query = query.where((eb) =>
      ids.length === 0
        ? eb('deleted_links.organization_id', 'is', null)
        : eb.or([
            eb('deleted_links.organization_id', 'is', null),
            eb('deleted_links.organization_id', 'in', ids),
          ]),
    )
  }
  return newestFirst(query, window, 'deleted_links', 'deleted_at').execute()
}

export async function findRestorable(
  ex: Executor,
  userId: string,
  id: string,
  since: Timestamp,
): Promise<DeletedLinkRecord | null> {
  return (
    (await restorableBy(ex, userId, since).where('deleted_links.id', '=', id).executeTakeFirst()) ??
    null
  )
}

/** Takes the deleted link out (one restore wins a race: the loser deletes nothing). */
export async function removeDeletedLink(ex: Executor, id: string): Promise<boolean> {
  return (
    (await ex.deleteFrom('deleted_links').where('id', '=', id).executeTakeFirst()).numDeletedRows >
    0n
  )
}

/** Forgets what was deleted before `before` (the 30 days are over); returns how many. */
export async function purgeDeletedLinks(ex: Executor, before: Timestamp): Promise<number> {
  return Number(
    (await ex.deleteFrom('deleted_links').where('deleted_at', '<', before).executeTakeFirst())
      .numDeletedRows,
  )
}

/** The tags of these ids that still exist (a restored link gets back only those). */
export async function findExistingTagIds(
  ex: Executor,
  tagIds: readonly string[],
): Promise<string[]> {
  if (tagIds.length === 0) return []
  return (await ex.selectFrom('tags').select('id').where('id', 'in', tagIds).execute()).map(
    (row) => row.id,
  )
}

export async function insertLinkTagsAndClicks(
  ex: Executor,
  linkId: string,
  tagIds: readonly string[],
  clicks: LinkSnapshot['clicks'],
): Promise<void> {
  if (tagIds.length > 0)
    await ex
      .insertInto('link_tags')
      .values(tagIds.map((tag_id) => ({ link_id: linkId, tag_id })))
      .execute()
  // 3 parameters a row: 200 rows a statement stay far below SQLite's limit (400 days at most).
  for (let i = 0; i < clicks.length; i += 200) {
    await ex
      .insertInto('link_clicks')
      .values(clicks.slice(i, i + 200).map((row) => ({ link_id: linkId, ...row })))
      .execute()
  }
  if (clicks.length > 0) await recountRecentClicks(ex, linkId)
}

/**
 * Whether the two users are members of one organization (a transfer goes only to such a person).
 */
export async function shareAnOrganization(
  ex: Executor,
  userId: string,
  otherId: string,
): Promise<boolean> {
  const row = await ex
    .selectFrom('organization_members as mine')
    .innerJoin('organization_members as theirs', 'theirs.organization_id', 'mine.organization_id')
    .innerJoin('users', 'users.id', 'theirs.user_id')
    .select('theirs.user_id')
    .where('mine.user_id', '=', userId)
    .where('theirs.user_id', '=', otherId)
    .where('users.disabled', '=', false)
    .executeTakeFirst()
  return row !== undefined
}

/** Moves the link to its new owner (exactly one of the two ids is set). */
export async function setLinkOwner(
  ex: Executor,
  linkId: string,
  owner: { user_id: string | null; organization_id: string | null },
  updatedAt: Timestamp,
): Promise<void> {
  await ex
    .updateTable('links')
    .set({ ...owner, updated_at: updatedAt })
    .where('id', '=', linkId)
    .execute()
}

/**
 * Deletes the tags, on the links `links` selects, of the people who do not see those links (each
 * user's tags are their own; a link gone from view keeps none of theirs) — among the members of
 * `teamIds` only, when given: a team unshared loses sight for its members alone. Each tag is
 * checked by its own tag and link (primary keys), never against everyone's tags. visibleTo is
 * NULL, not false, for an organization's link and someone outside it: hence the coalesce.
 */
async function deleteTagsOfNonReaders(
  ex: Executor,
  links: RawBuilder<boolean>,
  teamIds?: readonly string[],
): Promise<void> {
  if (teamIds !== undefined && teamIds.length === 0) return
  const among =
    teamIds === undefined
      ? sql``
      : sql` and tags.user_id in (select team_members.user_id from team_members where team_members.team_id in (${sql.join(teamIds)}))`
  await sql`delete from link_tags where ${links} and exists (select 1 from tags, links where tags.id = link_tags.tag_id and links.id = link_tags.link_id${among} and not coalesce(${visibleTo(sql.ref('tags.user_id'))}, false))`.execute(
    ex,
  )
}

/**
 * Drops the tags of people who no longer see the links: everyone's after a change of owner, the
 * members' of `teamIds` after those teams were unshared.
 */
export async function dropTagsOfNonReaders(
  ex: Executor,
  linkIds: readonly string[],
  teamIds?: readonly string[],
): Promise<void> {
  if (linkIds.length === 0) return
  await deleteTagsOfNonReaders(
    ex,
    sql<boolean>`link_tags.link_id in (${sql.join(linkIds)})`,
    teamIds,
  )
}

/**
 * After `teamIds` were unshared from the collection: drops the tags of their members who no
 * longer see the collection's links.
 */
export async function dropTagsOfNonReadersInCollection(
  ex: Executor,
  collectionId: string,
  teamIds: readonly string[],
): Promise<void> {
  await deleteTagsOfNonReaders(
    ex,
    sql<boolean>`link_tags.link_id in (select collection_links.link_id from collection_links where collection_links.collection_id = ${collectionId})`,
    teamIds,
  )
}

/**
 * What a change of owner drops, in this order: the links' entries in the collections their new
 * owner may not hold them in (and with them the sight of the teams those are shared with), then
 * the tags of everyone who no longer sees them. Every path that changes a link's owner calls it.
 */
export async function dropAfterOwnerChange(
  ex: Executor,
  linkIds: readonly string[],
): Promise<void> {
  await dropEntriesOfOtherOwners(ex, linkIds)
  await dropTagsOfNonReaders(ex, linkIds)
}

/**
 * Takes the links out of the collections their owner may not hold them in: a link belongs only in
 * its owner's collections (the person's, or the organization's), so after a change of owner it
 * leaves the former owner's — and the teams those are shared with stop seeing it through them.
 */
async function dropEntriesOfOtherOwners(ex: Executor, linkIds: readonly string[]): Promise<void> {
  if (linkIds.length === 0) return
  await ex
    .deleteFrom('collection_links')
    .where('collection_links.link_id', 'in', linkIds)
    .where((outer) =>
      outer.not(
        outer.exists(
          outer
            .selectFrom('collections')
            .innerJoin('links', 'links.id', 'collection_links.link_id')
            .select('collections.id')
            .whereRef('collections.id', '=', 'collection_links.collection_id')
            .where((eb) =>
              eb.or([
                eb('collections.user_id', '=', eb.ref('links.user_id')),
                eb('collections.organization_id', '=', eb.ref('links.organization_id')),
              ]),
            ),
        ),
      ),
    )
    .execute()
}
