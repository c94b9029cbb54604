/**
 * SQL for collections. A user sees a collection that is theirs, their organization's, or shared
 * with one of their teams (memberships read by each statement); anything else is not found.
 */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../db/schema.js'
import { lockRowsInIdOrder } from '../../db/row-locks.js'
import { collectionVisibleTo } from '../links/visibility.js'

export interface CollectionRecord {
  id: string
  user_id: string | null
  organization_id: string | null
  created_by: string | null
  name: string
  description: string | null
  created_at: Timestamp
  updated_at: Timestamp
  /** The reader's role in the collection's organization; null when not a member (or personal). */
  role: string | null
  link_count: number
}

function visibleCollections(ex: Executor, userId: string) {
  return ex
    .selectFrom('collections')
    .leftJoin('organization_members', (join) =>
      join
        .onRef('organization_members.organization_id', '=', 'collections.organization_id')
        .on('organization_members.user_id', '=', userId),
    )
    .select([
      'collections.id',
      'collections.user_id',
      'collections.organization_id',
      'collections.created_by',
      'collections.name',
      'collections.description',
      'collections.created_at',
      'collections.updated_at',
      'organization_members.role',
      sql<
        number | string
      >`(select count(*) from collection_links where collection_links.collection_id = ${sql.ref('collections.id')})`.as(
        'link_count',
      ),
    ])
    .where(collectionVisibleTo(userId))
}

type Row = Omit<CollectionRecord, 'link_count'> & { link_count: number | string }
const asRecord = (row: Row): CollectionRecord => ({ ...row, link_count: Number(row.link_count) })

/** The collections the user sees, by name ignoring case, then id (at most `limit`). */
export async function listVisibleCollections(
  ex: Executor,
  userId: string,
  limit: number,
): Promise<CollectionRecord[]> {
  const rows = await visibleCollections(ex, userId)
    .orderBy(sql`lower(${sql.ref('collections.name')})`)
    .orderBy('collections.id')
    .limit(limit)
    .execute()
  return rows.map(asRecord)
}

export async function findVisibleCollection(
  ex: Executor,
  userId: string,
  id: string,
): Promise<CollectionRecord | null> {
  const row = await visibleCollections(ex, userId)
    .where('collections.id', '=', id)
    .executeTakeFirst()
  return row === undefined ? null : asRecord(row)
}

export async function insertCollection(
  ex: Executor,
  row: {
    id: string
    user_id: string | null
    organization_id: string | null
    created_by: string
    name: string
    description: string | null
    created_at: Timestamp
  },
): Promise<void> {
  await ex
    .insertInto('collections')
    .values({ ...row, updated_at: row.created_at })
    .execute()
}

export async function updateCollection(
  ex: Executor,
  id: string,
  changes: { name?: string; description?: string | null; updated_at: Timestamp },
): Promise<void> {
  await ex.updateTable('collections').set(changes).where('id', '=', id).execute()
}

export async function deleteCollection(ex: Executor, id: string): Promise<boolean> {
  const result = await ex.deleteFrom('collections').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** The teams each collection is shared with, by name. */
export async function findTeamsOfCollections(
  ex: Executor,
  ids: readonly string[],
): Promise<Map<string, Array<{ id: string; name: string }>>> {
  const byCollection = new Map<string, Array<{ id: string; name: string }>>(
    ids.map((id) => [id, []]),
  )
  if (ids.length === 0) return byCollection
  const rows = await ex
    .selectFrom('collection_teams')
    .innerJoin('teams', 'teams.id', 'collection_teams.team_id')
    .select(['collection_teams.collection_id', 'teams.id', 'teams.name'])
    .where('collection_teams.collection_id', 'in', ids)
    .orderBy('teams.name_key')
    .execute()
  for (const row of rows) byCollection.get(row.collection_id)?.push({ id: row.id, name: row.name })
  return byCollection
}

export async function addCollectionTeams(
  ex: Executor,
  id: string,
  teamIds: readonly string[],
): Promise<void> {
  if (teamIds.length === 0) return
  await ex
    .insertInto('collection_teams')
    .values(teamIds.map((teamId) => ({ collection_id: id, team_id: teamId })))
    .onConflict((oc) => oc.columns(['collection_id', 'team_id']).doNothing())
    .execute()
}

export async function removeCollectionTeams(
  ex: Executor,
  id: string,
  teamIds: readonly string[],
): Promise<void> {
  if (teamIds.length === 0) return
  await ex
    .deleteFrom('collection_teams')
    .where('collection_id', '=', id)
    .where('team_id', 'in', teamIds)
    .execute()
}

/**
 * Locks the collection's row until the transaction ends (PostgreSQL; SQLite serialises writers),
 * so changes of its links run one after the other and each replaces what the previous one wrote.
 * False when it is gone.
 */
export async function lockCollection(ex: Executor, id: string): Promise<boolean> {
  const row = await ex
    .selectFrom('collections')
    .select('id')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Locks, in id order, the links the collection holds and the `linkIds` (FOR SHARE, until the
 * transaction ends), and answers those of `linkIds` its owner owns: the user's personal links, or
 * the organization's. A link deleted or transferred meanwhile waits for this transaction, or is
 * seen as it is afterwards. Every writer that deletes a link locks it before its collection
 * entries (the cascade), and this lock comes before the entries are replaced: one order, no
 * deadlock between the two.
 */
export async function lockLinksOfCollection(
  ex: Executor,
  collection: { id: string; user_id: string | null; organization_id: string | null },
  linkIds: readonly string[],
): Promise<Set<string>> {
  const held = await ex
    .selectFrom('collection_links')
    .select('link_id')
    .where('collection_id', '=', collection.id)
    .execute()
  const ids = [...new Set([...linkIds, ...held.map((row) => row.link_id)])]
  if (ids.length === 0) return new Set()
  const rows = await ex
    .selectFrom('links')
    .select(['links.id', 'links.user_id', 'links.organization_id'])
    .where('links.id', 'in', ids)
    .orderBy('links.id')
    .forShare()
    .execute()
  const wanted = new Set(linkIds)
  const owned = rows.filter((row) =>
    collection.organization_id === null
      ? row.user_id === collection.user_id
      : row.organization_id === collection.organization_id,
  )
  return new Set(owned.filter((row) => wanted.has(row.id)).map((row) => row.id))
}

/**
 * Locks the links the collection holds (FOR UPDATE, in id order, until the transaction ends;
 * PostgreSQL), before a write that changes what their readers keep of them (their tags).
 */
export async function lockLinksOfCollectionInIdOrder(ex: Executor, id: string): Promise<void> {
  await lockRowsInIdOrder(
    ex,
    'links',
    sql<boolean>`id in (select collection_links.link_id from collection_links where collection_links.collection_id = ${id})`,
  )
}

/** Replaces the collection's links by these, in this order, each with its slug key. */
export async function replaceCollectionLinks(
  ex: Executor,
  id: string,
  linkIds: readonly string[],
): Promise<void> {
  await ex.deleteFrom('collection_links').where('collection_id', '=', id).execute()
  for (let start = 0; start < linkIds.length; start += 200) {
    await ex
      .insertInto('collection_links')
      .values(
        linkIds.slice(start, start + 200).map((linkId, n) => ({
          collection_id: id,
          link_id: linkId,
          position: start + n,
          slug_key: sql<
            string | null
          >`(select links.slug_key from links where links.id = ${linkId})`,
        })),
      )
      .execute()
  }
}
