/**
 * An import's collections: a bookmark file's folders, and a JSON export's collections, become
 * collections of the import's owner, named by the folder's path (`Work/Projects`): each holds its
 * links in file order — the ones imported, and the owner's existing link for a bookmark skipped as
 * a duplicate URL, so a link written into several folders lands in each. A collection of the same
 * name that the owner has already is added to, never made twice. They are written after the links
 * (service.ts importLinks), in parts as well.
 */
import { nextTurn } from '../../../lib/event-loop-turns.js'
import type { Deps } from '../../../deps.js'
import type { Executor } from '../../../db/schema.js'
import { newId } from '../../../lib/ids.js'
import { can, type Role } from '../../organizations/roles.js'
import { lockLinkOwner, type LinkOwner } from '../repo.js'
import { linkOwnerFor } from '../service.js'
import { inBatches, INSERT_BATCH, LOOKUP_BATCH, WRITE_PART } from './batches.js'
import { cleanText } from './candidate.js'
import {
  findHeldEntries,
  findLastPositions,
  findOwnerCollectionsNamed,
  insertCollectionEntries,
  insertCollections,
  lockCollections,
  lockOwnedLinks,
  touchCollections,
  type OwnedCollection,
} from './collections.repo.js'
import type { CollectionCandidate } from './json-format.js'
import { REPORTED_LINKS, type ImportReport } from './schemas.js'

/** A collection's longest name and description (collections/schemas.ts). */
export const COLLECTION_NAME = 200
const COLLECTION_DESCRIPTION = 1000

/** What the file read that names collections: its folders, a JSON export's collections. */
interface ReadFile {
  /** Per position in the file: the folder the bookmark is in, or null. */
  folders: ReadonlyArray<string | null>
  collections: readonly CollectionCandidate[]
}

/** A collection the file asks for: its name, description and links by position in the file. */
interface WantedCollection {
  name: string
  description: string | null
  positions: number[]
}

/**
 * The collections the file asks for, by name, in the order first named: a bookmark file's folders
 * (their links in file order), or a JSON export's collections (their links as listed; positions
 * past the file's links refer to nothing). One name named twice is one collection.
 */
export function wantedCollections(read: ReadFile): WantedCollection[] {
  const byName = new Map<string, WantedCollection>()
  const named = (name: string, description: string | null) => {
    let wanted = byName.get(name)
    if (wanted === undefined) byName.set(name, (wanted = { name, description, positions: [] }))
    else wanted.description ??= description
    return wanted
  }
  read.folders.forEach((folder, position) => {
    if (folder !== null) named(folder, null).positions.push(position)
  })
  for (const collection of read.collections) {
    const name = cleanText(collection.name, COLLECTION_NAME)
    if (name === null) continue
    const wanted = named(name, cleanText(collection.description, COLLECTION_DESCRIPTION))
    for (const position of collection.links)
      if (position < read.folders.length) wanted.positions.push(position)
  }
  return [...byName.values()]
}

/** Whether the importer may change the owner's collection (as collections/service.ts decides). */
function mayChange(collection: OwnedCollection, owner: LinkOwner, userId: string): boolean {
  if (owner.organizationId === null) return true
  return (
    collection.role !== null &&
    (collection.created_by === userId || can(collection.role as Role, 'manage_links'))
  )
}

type Entry = { collection_id: string; link_id: string }

/**
 * Appends a part's entries to their collections, inside one transaction: the collections locked
 * (as a PUT of their links locks them), then the links still the owner's, then the positions read
 * after each collection's last one — so a PUT or another import before or after leaves positions
 * 0..n-1, each once. A link a collection holds already keeps its place; a link no longer the
 * owner's, or a collection deleted meanwhile, is left out. Returns how many each one got.
 */
async function appendEntries(
  tx: Executor,
  owner: LinkOwner,
  part: readonly Entry[],
): Promise<Map<string, number>> {
  const collections = await lockCollections(
    tx,
    part.map((entry) => entry.collection_id),
  )
  const linkIds = part.map((entry) => entry.link_id)
  const owned = await lockOwnedLinks(tx, owner, linkIds)
  const held = await findHeldEntries(tx, [...collections], linkIds)
  const next = new Map<string, number>()
  for (const [id, last] of await findLastPositions(tx, [...collections])) next.set(id, last + 1)
  const rows: Array<Entry & { position: number }> = []
  for (const entry of part) {
    const key = `${entry.collection_id} ${entry.link_id}`
    if (!collections.has(entry.collection_id) || !owned.has(entry.link_id) || held.has(key))
      continue
    held.add(key)
    const position = next.get(entry.collection_id) ?? 0
    next.set(entry.collection_id, position + 1)
    rows.push({ ...entry, position })
  }
  await inBatches(rows, LOOKUP_BATCH, (batch) => insertCollectionEntries(tx, batch))
  const added = new Map<string, number>()
  for (const row of rows) added.set(row.collection_id, (added.get(row.collection_id) ?? 0) + 1)
  return added
}

/**
 * Puts the file's links into the owner's collections of the wanted names, creating the missing
 * ones: first, with the owner locked (so two imports at once make a name once), the collections
 * are found or made; then the entries are appended in parts of WRITE_PART (appendEntries). An
 * organization's collection the importer may not change is left as it is (reported with 0 added).
 */
export async function fileIntoCollections(
  deps: Deps,
  userId: string,
  organizationId: string | null | undefined,
  wanted: readonly WantedCollection[],
  linkIdAt: ReadonlyArray<string | null>,
): Promise<{ created: number; collections: ImportReport['collections'] }> {
  const now = deps.clock.now().toISOString()
  const plan = await deps.db.transaction().execute(async (tx) => {
    const owner = await linkOwnerFor(tx, userId, organizationId)
    await lockLinkOwner(tx, owner)
    const found = new Map<string, OwnedCollection>()
    await inBatches(
      wanted.map((collection) => collection.name),
      LOOKUP_BATCH,
      async (names) => {
        for (const collection of await findOwnerCollectionsNamed(tx, owner, userId, names))
          if (!found.has(collection.name)) found.set(collection.name, collection)
      },
    )
    const missing = wanted.filter((collection) => !found.has(collection.name))
    const made = missing.map((collection) => ({
      id: newId(),
      user_id: owner.organizationId === null ? owner.userId : null,
      organization_id: owner.organizationId,
      created_by: userId,
      name: collection.name,
      description: collection.description,
      created_at: now,
    }))
    await inBatches(made, INSERT_BATCH, (batch) => insertCollections(tx, batch))
    for (const row of made)
      found.set(row.name, { id: row.id, name: row.name, created_by: userId, role: null })
    const madeIds = new Set(made.map((row) => row.id))
    const changeable = wanted.flatMap((collection) => {
      const row = found.get(collection.name)!
      return madeIds.has(row.id) || mayChange(row, owner, userId) ? [row.id] : []
    })
    return { owner, found, made: madeIds, changeable: new Set(changeable) }
  })

  const entries: Entry[] = []
  for (const collection of wanted) {
    const id = plan.found.get(collection.name)!.id
    if (!plan.changeable.has(id)) continue
    for (const at of collection.positions) {
      const linkId = linkIdAt[at]
      if (linkId !== null && linkId !== undefined)
        entries.push({ collection_id: id, link_id: linkId })
    }
  }
  const added = new Map<string, number>()
  for (let start = 0; start < entries.length; start += WRITE_PART) {
    // Other requests get their turn between parts, as between the links' parts.
    if (start > 0) await nextTurn()
    await deps.db.transaction().execute(async (tx) => {
      const part = entries.slice(start, start + WRITE_PART)
      for (const [id, count] of await appendEntries(tx, plan.owner, part))
        added.set(id, (added.get(id) ?? 0) + count)
      await touchCollections(tx, [...new Set(part.map((entry) => entry.collection_id))], now)
    })
  }
  return {
    created: plan.made.size,
    collections: wanted.slice(0, REPORTED_LINKS).map((collection) => {
      const id = plan.found.get(collection.name)!.id
      return {
        id,
        name: collection.name,
        created: plan.made.has(id),
        links_added: added.get(id) ?? 0,
      }
    }),
  }
}

/** How many of the wanted collections the owner does not have yet (a dry run's count). */
export async function countMissingCollections(
  deps: Deps,
  userId: string,
  organizationId: string | null | undefined,
  wanted: readonly WantedCollection[],
): Promise<number> {
  const owner = await linkOwnerFor(deps.db, userId, organizationId)
  const found = new Set<string>()
  await inBatches(
    wanted.map((collection) => collection.name),
    LOOKUP_BATCH,
    async (names) => {
      for (const collection of await findOwnerCollectionsNamed(deps.db, owner, userId, names))
        found.add(collection.name)
    },
  )
  return wanted.filter((collection) => !found.has(collection.name)).length
}
