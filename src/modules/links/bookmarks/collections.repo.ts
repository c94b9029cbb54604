/**
 * SQL for the collections of an import and an export: folders of a bookmark file, or a JSON
 * export's `collections`, found by name among the owner's collections or created, and their links
 * appended in the file's order; and the collections an export writes back, with their links in
 * order.
 */
import { sql } from 'kysely'
import type { Executor, Timestamp } from '../../../db/schema.js'
import type { LinkOwner } from '../repo.js'
import { collectionVisibleTo } from '../visibility.js'

/** Values per `in` list and rows per insert: one statement each, far below either engine's cap. */
const CHUNK = 200

export interface OwnedCollection {
  id: string
  name: string
  created_by: string | null
  /** The importer's role in the collection's organization; null for a personal collection. */
  role: string | null
}

/**
 * The owner's collections with these exact names, oldest first (a name held twice is found as
 * the oldest collection of that name by whoever reads the list in order).
 */
export async function findOwnerCollectionsNamed(
  ex: Executor,
  owner: LinkOwner,
  userId: string,
  names: readonly string[],
): Promise<OwnedCollection[]> {
  const found: OwnedCollection[] = []
  for (let i = 0; i < names.length; i += CHUNK) {
    const query = ex
      .selectFrom('collections')
      .leftJoin('organization_members', (join) =>
        join
          .onRef('organization_members.organization_id', '=', 'collections.organization_id')
          .on('organization_members.user_id', '=', userId),
      )
      .select([
        'collections.id',
        'collections.name',
        'collections.created_by',
        'organization_members.role',
      ])
      .where('collections.name', 'in', names.slice(i, i + CHUNK))
      .orderBy('collections.created_at')
      .orderBy('collections.id')
    found.push(
      ...(await (
        owner.organizationId === null
          ? query.where('collections.user_id', '=', owner.userId)
          : query.where('collections.organization_id', '=', owner.organizationId)
      ).execute()),
    )
  }
  return found
}

export async function insertCollections(
  ex: Executor,
  rows: ReadonlyArray<{
    id: string
    user_id: string | null
    organization_id: string | null
    created_by: string
    name: string
    description: string | null
    created_at: Timestamp
  }>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 50) {
    await ex
      .insertInto('collections')
      .values(rows.slice(i, i + 50).map((row) => ({ ...row, updated_at: row.created_at })))
      .execute()
  }
}

/** The last position taken in each of the collections (absent: none yet). */
export async function findLastPositions(
  ex: Executor,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const last = new Map<string, number>()
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await ex
      .selectFrom('collection_links')
      .select(['collection_id', (eb) => eb.fn.max<number | string>('position').as('last')])
      .where('collection_id', 'in', ids.slice(i, i + CHUNK))
      .groupBy('collection_id')
      .execute()
    for (const row of rows) last.set(row.collection_id, Number(row.last))
  }
  return last
}

/**
 * Locks the collections' rows (FOR UPDATE, in id order; SQLite serialises writers), as a PUT of a
 * collection's links does first, so entries appended here and a PUT's list follow one another.
 */
export async function lockCollections(ex: Executor, ids: readonly string[]): Promise<Set<string>> {
  const sorted = [...new Set(ids)].sort()
  const found = new Set<string>()
  for (let i = 0; i < sorted.length; i += CHUNK) {
    const rows = await ex
      .selectFrom('collections')
      .select('id')
      .where('id', 'in', sorted.slice(i, i + CHUNK))
      .orderBy('id')
      .forUpdate()
      .execute()
    for (const row of rows) found.add(row.id)
  }
  return found
}

/**
 * Of the links, those the owner owns now, locked (FOR SHARE, in id order, after the collections
 * as a PUT locks them): a link deleted or transferred since it was imported goes into no
 * collection of the owner's.
 */
export async function lockOwnedLinks(
  ex: Executor,
  owner: LinkOwner,
  linkIds: readonly string[],
): Promise<Set<string>> {
  const sorted = [...new Set(linkIds)].sort()
  const owned = new Set<string>()
  for (let i = 0; i < sorted.length; i += CHUNK) {
    const rows = await ex
      .selectFrom('links')
      .select(['id', 'user_id', 'organization_id'])
      .where('id', 'in', sorted.slice(i, i + CHUNK))
      .orderBy('id')
      .forShare()
      .execute()
    for (const row of rows)
      if (
        owner.organizationId === null
          ? row.user_id === owner.userId
          : row.organization_id === owner.organizationId
      )
        owned.add(row.id)
  }
  return owned
}

/** Which of the links each collection holds already ("collection id link id" pairs). */
export async function findHeldEntries(
  ex: Executor,
  collectionIds: readonly string[],
  linkIds: readonly string[],
): Promise<Set<string>> {
  const held = new Set<string>()
  const links = [...new Set(linkIds)]
  for (let c = 0; c < collectionIds.length; c += CHUNK)
    for (let i = 0; i < links.length; i += CHUNK) {
      const rows = await ex
        .selectFrom('collection_links')
        .select(['collection_id', 'link_id'])
        .where('collection_id', 'in', collectionIds.slice(c, c + CHUNK))
        .where('link_id', 'in', links.slice(i, i + CHUNK))
        .execute()
      for (const row of rows) held.add(`${row.collection_id} ${row.link_id}`)
    }
  return held
}

/** Puts links into collections at the given positions, each with its link's slug key. */
export async function insertCollectionEntries(
  ex: Executor,
  entries: ReadonlyArray<{ collection_id: string; link_id: string; position: number }>,
): Promise<void> {
  for (let i = 0; i < entries.length; i += CHUNK) {
    await ex
      .insertInto('collection_links')
      .values(
        entries.slice(i, i + CHUNK).map((entry) => ({
          ...entry,
          slug_key: sql<
            string | null
          >`(select links.slug_key from links where links.id = ${entry.link_id})`,
        })),
      )
      .execute()
  }
}

export async function touchCollections(
  ex: Executor,
  ids: readonly string[],
  now: Timestamp,
): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK)
    await ex
      .updateTable('collections')
      .set({ updated_at: now })
      .where('id', 'in', ids.slice(i, i + CHUNK))
      .execute()
}

export interface ExportCollection {
  id: string
  name: string
  description: string | null
  organization_id: string | null
}

/** The collections the user sees (as GET /api/collections), by name ignoring case, then id. */
export async function findVisibleCollectionsToExport(
  ex: Executor,
  userId: string,
  limit: number,
  only?: string,
): Promise<ExportCollection[]> {
  let query = ex
    .selectFrom('collections')
    .select(['id', 'name', 'description', 'organization_id'])
    .where(collectionVisibleTo(userId))
  if (only !== undefined) query = query.where('collections.id', '=', only)
  return query
    .orderBy(sql`lower(${sql.ref('collections.name')})`)
    .orderBy('collections.id')
    .limit(limit)
    .execute()
}

/** The collections an export reads the links of in one statement (one `in` list). */
export const COLLECTIONS_PER_READ = CHUNK

export interface CollectionLink {
  collection_id: string
  link_id: string
  position: number
}

/**
 * At most `limit` links of these collections after `after`, in the primary key's order
 * (collection, link): a range of its index whatever the collections' sizes, so a read's work is
 * bounded by `limit`. The order within a collection is the caller's to make (by position).
 */
export async function findCollectionLinksPage(
  ex: Executor,
  collectionIds: readonly string[],
  after: CollectionLink | null,
  limit: number,
): Promise<CollectionLink[]> {
  let query = ex
    .selectFrom('collection_links')
    .select(['collection_id', 'link_id', 'position'])
    .where('collection_id', 'in', collectionIds)
  if (after !== null)
    query = query.where((eb) =>
      eb(
        eb.refTuple('collection_id', 'link_id'),
        '>',
        eb.tuple(after.collection_id, after.link_id),
      ),
    )
  const rows = await query.orderBy('collection_id').orderBy('link_id').limit(limit).execute()
  return rows.map((row) => ({ ...row, position: Number(row.position) }))
}
