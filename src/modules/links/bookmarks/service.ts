/**
 * Import and export of links: the Netscape bookmark file every browser writes, and
 * Switchboard's own JSON.
 *
 * Import is per item: every bookmark that passes the rules becomes a link, every other one is
 * reported with its reason (invalid URL or slug, a URL or slug the owner already has — in the
 * database or earlier in the same file). The file is read whole first (reader.ts: as it arrives,
 * never held whole; its bookmarks kept as text until their part is written, read-parts.ts), so a
 * failure of the file as a whole (not a bookmark file, not JSON, too many items, too large) is a
 * 400 or 413 and imports nothing; then it is written in parts, each in a transaction with the
 * owner locked, so two imports of the same file one after the other, or at the same time, create
 * each link once.
 *
 * A bookmark file's folders, and a JSON export's collections, become collections of the import's
 * owner after the links are written (collection-filing.ts).
 */
import { joinedInParts, nextTurn, withTurns } from '../../../lib/event-loop-turns.js'
import type { Deps } from '../../../deps.js'
import type { PageWindow } from '../../../db/keyset.js'
import type { Executor } from '../../../db/schema.js'
import { invalidField } from '../../../errors.js'
import { newId } from '../../../lib/ids.js'
import type { Caller, RequestContext } from '../../../identity/caller.js'
import { recordAudit } from '../../audit/service.js'
import { pluralFormsOf, tagNameKey } from '../../tags/name-forms.js'
import { findTagsByNameKeys, insertTagsUnlessTaken } from '../../tags/repo.js'
import { GO_LINKS_SETTING } from '../slug-matching.js'
import { holdSlugRule, readFoldSetting } from '../slug-matching.repo.js'
import { slugKey } from '../url.js'
import {
  findClicksOfLinks,
  findOwnTagsOfLinks,
  findLinkIdsByUrl,
  findTakenSlugKeys,
  insertLinks,
  lockLinkOwner,
  refreshLinkStatistics,
  type LinkOwner,
} from '../repo.js'
import { listVisibleLinks } from '../list.repo.js'
import { assertReachable, linkFilters, linkOwnerFor } from '../service.js'
import {
  cleanBookmark,
  cleanText,
  Skip,
  type BookmarkCandidate,
  type CleanBookmark,
} from './candidate.js'
import { inBatches, INSERT_BATCH, LOOKUP_BATCH, WRITE_PART } from './batches.js'
import {
  COLLECTION_NAME,
  countMissingCollections,
  fileIntoCollections,
  wantedCollections,
} from './collection-filing.js'
import {
  COLLECTIONS_PER_READ,
  findCollectionLinksPage,
  findVisibleCollectionsToExport,
  type CollectionLink,
} from './collections.repo.js'
import { alreadySaved } from '../duplicates.js'
import { JSON_FORMAT, type CollectionCandidate } from './json-format.js'
import { detach, netscapeBookmarkLines } from './netscape.js'
import { readImportFile, type ImportFile } from './reader.js'
import { ReadParts, SHOWN_URL, type ReadBookmark } from './read-parts.js'
import {
  MAX_EXPORT_ITEMS,
  MAX_IMPORT_ITEMS,
  REPORTED_LINKS,
  type ExportQuery,
  type ImportReport,
  type LinkExport,
} from './schemas.js'

/** The most collections one export carries, as GET /api/collections lists. */
const EXPORT_COLLECTIONS = 1000

type Skipped = ImportReport['skipped'][number]

const PAGE = 200

/** What the file read: its bookmarks, each one's folder, and a JSON export's collections. */
interface ReadFile {
  bookmarks: ReadParts
  /**
   * Per position in the file: a bookmark file's folder path, cleaned as a collection's name (the
   * collection the bookmark goes into), or null.
   */
  folders: Array<string | null>
  collections: CollectionCandidate[]
}

const shownUrl = (candidate: BookmarkCandidate | null) =>
  typeof candidate?.url === 'string' ? detach(candidate.url.slice(0, SHOWN_URL)) : null

/**
 * The file's bookmarks, cleaned as they are read; the one past the cap stops reading with a 400.
 */
async function readBookmarks(file: ImportFile): Promise<ReadFile> {
  const read = new ReadParts()
  const folders: Array<string | null> = []
  const collections: CollectionCandidate[] = []
  const onCollection = (collection: CollectionCandidate) => collections.push(collection)
  // A folder's bookmarks share its path, so each path is cleaned once, while the file is read
  // (whose reading gives the event loop back), not once per bookmark after it.
  const folderNames = new Map<string, string | null>()
  const folderName = (folder: unknown) => {
    if (typeof folder !== 'string') return null
    let name = folderNames.get(folder)
    if (name === undefined) folderNames.set(folder, (name = cleanText(folder, COLLECTION_NAME)))
    return name
  }
  await readImportFile(
    file,
    (candidate) => {
      if (read.length === MAX_IMPORT_ITEMS) {
        throw invalidField(
          'content',
          `holds more than ${MAX_IMPORT_ITEMS} links; one import takes at most ${MAX_IMPORT_ITEMS} (split the file)`,
        )
      }
      read.push({
        verdict:
          candidate === null
            ? new Skip('invalid_item', 'is not a link object')
            : cleanBookmark(candidate),
        shownUrl: shownUrl(candidate),
      })
      folders.push(folderName(candidate?.folder))
    },
    onCollection,
  )
  return { bookmarks: read, folders, collections }
}

/** A bookmark to import, with the id its link will have. */
type Accepted = CleanBookmark & { id: string }

/**
 * Applies the owner's existing URLs and slugs to a part of the file (starting at `offset`); what
 * remains is imported. `seen` holds what earlier bookmarks of the file took (URL → link id), so
 * later duplicates in the same file are reported like existing ones. `linkIdAt` gets, per position
 * of the file, the link the bookmark is: the new one, or the existing one of a duplicate URL.
 */
async function sortOut(
  ex: Executor,
  owner: LinkOwner,
  part: readonly ReadBookmark[],
  offset: number,
  seen: { urls: Map<string, string>; slugKeys: Set<string> },
  linkIdAt: Array<string | null>,
): Promise<{ accepted: Accepted[]; skipped: Skipped[] }> {
  // Keyed by the instance's slug matching as this transaction reads it, held until it commits
  // (slug-matching.ts).
  await holdSlugRule(ex, 'shared')
  const fold = await readFoldSetting(ex, GO_LINKS_SETTING)
  const clean = part.flatMap((item) =>
    item.verdict instanceof Skip
      ? []
      : [{ ...item.verdict, slugKey: slugKey(item.verdict.slug, fold) }],
  )
  const takenUrls = new Map<string, string>()
  const takenSlugs = new Set<string>()
  await inBatches([...new Set(clean.map((item) => item.url))], LOOKUP_BATCH, async (urls) => {
    for (const [url, id] of await findLinkIdsByUrl(ex, owner, urls)) takenUrls.set(url, id)
  })
  await inBatches(
    [...new Set(clean.flatMap((item) => (item.slugKey === null ? [] : [item.slugKey])))],
    LOOKUP_BATCH,
    async (keys) => {
      for (const key of await findTakenSlugKeys(ex, owner, keys)) takenSlugs.add(key)
    },
  )
  const accepted: Accepted[] = []
  const skipped: Skipped[] = []
  part.forEach((item, index) => {
    let verdict = item.verdict
    if (!(verdict instanceof Skip)) {
      const existing = takenUrls.get(verdict.url) ?? seen.urls.get(verdict.url)
      if (existing !== undefined) {
        linkIdAt[offset + index] = existing
        verdict = new Skip('duplicate_url', 'a link to this URL exists already')
      } else if (
        verdict.slugKey !== null &&
        (takenSlugs.has(verdict.slugKey) || seen.slugKeys.has(verdict.slugKey))
      ) {
        verdict = new Skip('slug_taken', 'another link has this slug')
      }
    }
    if (verdict instanceof Skip) {
      skipped.push({
        position: offset + index + 1,
        url: item.shownUrl,
        reason: verdict.reason,
        message: verdict.message,
      })
      return
    }
    const id = newId()
    linkIdAt[offset + index] = id
    seen.urls.set(verdict.url, id)
    if (verdict.slugKey !== null) seen.slugKeys.add(verdict.slugKey)
    accepted.push({ ...verdict, id })
  })
  return { accepted, skipped }
}

/**
 * How an import's tag names become tags, across the parts of one file: `planned` holds the name
 * each new tag key was first written with in the file (later names of the same tag use it).
 */
interface TagPlan {
  /** False: only tags the person has already are put on links; new names are left out. */
  create: boolean
  /** False (a dry run): new tags are planned, not written; a planned tag's id is a placeholder. */
  write: boolean
  planned: Map<string, string>
}

/**
 * The caller's tags for these names: a name matching an existing tag ignoring case or a simple
 * plural (tags/name-forms.ts) is that tag; else one earlier in the file of the same kind; else a
 * new tag, created when the plan says so. Returns lower-cased name → the tag (null: left out).
 */
async function tagsNamed(
  ex: Executor,
  userId: string,
  names: readonly string[],
  plan: TagPlan,
  now: string,
): Promise<Map<string, { id: string; name: string } | null>> {
  const keys = [...new Set(names.map(tagNameKey))]
  const existing = new Map<string, { id: string; name: string }>()
  await inBatches([...new Set(keys.flatMap(pluralFormsOf))], LOOKUP_BATCH, async (batch) => {
    for (const [key, tag] of await findTagsByNameKeys(ex, userId, batch)) existing.set(key, tag)
  })
  // A new tag is written as the file first wrote it.
  const nameOf = new Map<string, string>()
  for (const name of names) if (!nameOf.has(tagNameKey(name))) nameOf.set(tagNameKey(name), name)
  /** Each name's key → the key of the tag it is: existing, or planned in this file. */
  const target = new Map<string, string>()
  const missing: string[] = []
  for (const key of keys) {
    const forms = pluralFormsOf(key)
    const found =
      forms.find((form) => existing.has(form)) ?? forms.find((form) => plan.planned.has(form))
    if (found !== undefined) {
      target.set(key, found)
      continue
    }
    plan.planned.set(key, nameOf.get(key)!)
    target.set(key, key)
    missing.push(key)
  }
  if (plan.create && plan.write) {
    await inBatches(missing, INSERT_BATCH, (batch) =>
      insertTagsUnlessTaken(
        ex,
        batch.map((key) => ({
          id: newId(),
          user_id: userId,
          name: plan.planned.get(key)!,
          name_key: key,
          color: null,
          created_at: now,
        })),
      ),
    )
  }
  // Tags planned by an earlier part were created then (or left out): read back with the new ones.
  const planned = [...new Set(target.values())].filter((key) => !existing.has(key))
  if (plan.create && plan.write) {
    await inBatches(planned, LOOKUP_BATCH, async (batch) => {
      for (const [key, tag] of await findTagsByNameKeys(ex, userId, batch)) existing.set(key, tag)
    })
  } else if (plan.create) {
    for (const key of planned)
      existing.set(key, { id: `planned:${key}`, name: plan.planned.get(key)! })
  }
  return new Map(keys.map((key) => [key, existing.get(target.get(key)!) ?? null]))
}

export interface ImportRequest {
  file: ImportFile
  organizationId: string | null | undefined
  /** False: the file's tag names that are no tag of the caller's yet are left out. */
  createTags: boolean
  /** True: the report of what the import would do; nothing is written, nothing audited. */
  dryRun: boolean
}

/**
 * Writes the accepted bookmarks of one part of the file as links, with their tags as the plan
 * resolves them (a plan that does not write: nothing); returns the links with the names of the
 * tags they got.
 */
async function writeLinks(
  deps: Deps,
  tx: Executor,
  userId: string,
  owner: LinkOwner,
  accepted: readonly Accepted[],
  plan: TagPlan,
): Promise<Array<{ id: string; url: string; title: string | null; tags: string[] }>> {
  const now = deps.clock.now().toISOString()
  const names = [...new Set(accepted.flatMap((item) => item.tags))]
  const tags = await tagsNamed(tx, userId, names, plan, now)
  const tagsOf = (item: CleanBookmark) => {
    const found = item.tags.flatMap((name) => tags.get(tagNameKey(name)) ?? [])
    // "comic" and "Comics" on one bookmark are one tag.
    return [...new Map(found.map((tag) => [tag.id, tag])).values()]
  }
  const links = accepted.map((item) => ({
    id: item.id,
    user_id: owner.userId,
    organization_id: owner.organizationId,
    url: item.url,
    title: item.title,
    slug: item.slug,
    slug_key: item.slugKey,
    forwarding_enabled: item.forwardingEnabled,
    created_by: userId,
    // The file's date of the bookmark, unless it claims to be later than now.
    created_at: item.createdAt !== null && item.createdAt < now ? item.createdAt : now,
    tags: tagsOf(item),
  }))
  if (plan.write) {
    await inBatches(links, INSERT_BATCH, (batch) =>
      insertLinks(
        tx,
        batch.map(({ tags: _tags, ...link }) => link),
        batch.flatMap((link) => link.tags.map((tag) => ({ link_id: link.id, tag_id: tag.id }))),
      ),
    )
  }
  return links.map((link) => ({
    id: link.id,
    url: link.url,
    title: link.title,
    tags: link.tags.map((tag) => tag.name),
  }))
}

/**
 * Reads the whole file first (a file that fails as a whole imports nothing), then writes it in
 * parts of WRITE_PART bookmarks, each in a transaction that locks the owner and checks the part
 * against the links the owner has by then. One transaction for 20 000 links held SQLite's only
 * connection for seconds and ended in a commit (and WAL checkpoint) of tens of megabytes that
 * blocked the event loop well past 100 ms; parts keep each commit small. Per item, as
 * before: a failure of the database part-way leaves the earlier parts imported, and importing the
 * file again reports them as duplicates. The collections follow (fileIntoCollections).
 *
 * A dry run reads the file and sorts it out the same way, part by part, and answers the same
 * counts, skipped bookmarks and tag names (`new_tags`: the tags it would create) without writing
 * or auditing anything; it lists no links or collections, as it made none.
 */
export async function importLinks(
  deps: Deps,
  caller: Caller,
  request: ImportRequest,
  ctx: RequestContext,
): Promise<ImportReport> {
  const userId = caller.user.id
  // Checked before the file is read, so a caller who may not import there waits for nothing;
  // an organization outside an API token's boundary is one the caller is not in.
  assertReachable(caller, request.organizationId)
  await linkOwnerFor(deps.db, userId, request.organizationId)
  const file = await readBookmarks(request.file)
  const read = file.bookmarks
  const wanted = wantedCollections(file)
  const linkIdAt: Array<string | null> = Array.from({ length: read.length }, () => null)
  const seen = { urls: new Map<string, string>(), slugKeys: new Set<string>() }
  const report: ImportReport = {
    imported: 0,
    tags_created: 0,
    collections_created: 0,
    collections: [],
    skipped: [],
    links: [],
    tags: [],
    new_tags: [],
    new_tags_left_out: !request.createTags,
    already_saved: [],
    dry_run: request.dryRun,
  }
  const plan: TagPlan = { create: request.createTags, write: !request.dryRun, planned: new Map() }
  const createdNow = new Set<string>()
  const tagNames = new Map<string, string>()
  let offset = 0
  do {
    const part = read.take(offset)
    const last = offset + WRITE_PART >= read.length
    await deps.db.transaction().execute(async (tx) => {
      const owner = await linkOwnerFor(tx, userId, request.organizationId)
      if (plan.write) await lockLinkOwner(tx, owner)
      const { accepted, skipped } = await sortOut(tx, owner, part, offset, seen, linkIdAt)
      const written = await writeLinks(deps, tx, userId, owner, accepted, plan)
      for (const link of written) {
        if (plan.write) createdNow.add(link.id)
        if (plan.write && report.links.length < REPORTED_LINKS)
          report.links.push({ id: link.id, url: link.url, title: link.title })
        for (const name of link.tags)
          if (!tagNames.has(name.toLowerCase())) tagNames.set(name.toLowerCase(), name)
      }
      report.imported += accepted.length
      report.skipped.push(...skipped)
      if (!last) return
      report.tags_created = plan.create ? plan.planned.size : 0
      if (!plan.write) return
      await recordAudit(tx, deps.clock, ctx, {
        action: 'links.import',
        actor: { id: userId, email: caller.user.email },
        target:
          owner.organizationId === null
            ? { type: 'user', id: userId }
            : { type: 'organization', id: owner.organizationId },
        metadata: {
          format: request.file.format,
          imported: report.imported,
          skipped: report.skipped.length,
          tags_created: report.tags_created,
          collections: wanted.length,
        },
      })
    })
    offset += WRITE_PART
  } while (offset < read.length)
  if (plan.write && report.imported >= BULK_WRITE) await refreshStatistics(deps)
  if (wanted.length > 0 && plan.write) {
    const filed = await fileIntoCollections(deps, userId, request.organizationId, wanted, linkIdAt)
    report.collections_created = filed.created
    report.collections = filed.collections
  } else if (wanted.length > 0) {
    report.collections_created = await countMissingCollections(
      deps,
      userId,
      request.organizationId,
      wanted,
    )
  }
  const byKey = ([a]: [string, string], [b]: [string, string]) => (a < b ? -1 : a > b ? 1 : 0)
  report.tags = [...tagNames]
    .sort(byKey)
    .slice(0, REPORTED_LINKS)
    .map(([, name]) => name)
  report.new_tags = [...plan.planned]
    .sort(byKey)
    .slice(0, REPORTED_LINKS)
    .map(([, name]) => name)
  const reportedUrls = report.links.map((link) => link.url)
  report.already_saved = await alreadySaved(deps, caller, reportedUrls, createdNow)
  return report
}

/** An import of this many links or more refreshes the planner's statistics of links. */
const BULK_WRITE = 1000

/**
 * After a bulk import, the statistics the next import's look-ups are planned with
 * (repo.ts refreshLinkStatistics). A failure (a database role that may not analyze) costs only
 * the plans: the import has been written and is answered.
 */
async function refreshStatistics(deps: Deps): Promise<void> {
  try {
    await refreshLinkStatistics(deps.db)
  } catch (error) {
    deps.logger.warn(
      { error: { message: (error as Error).message } },
      'the statistics of links could not be refreshed after an import',
    )
  }
}

/** Links per read of the export's collections: a read of 2,000 takes a few milliseconds. */
const COLLECTION_LINKS_PER_READ = 2000

const byPosition = (a: CollectionLink, b: CollectionLink) =>
  a.position - b.position || (a.link_id < b.link_id ? -1 : a.link_id > b.link_id ? 1 : 0)

/**
 * Each collection's link ids in the collection's order (position, then id), read a page at a
 * time with a turn of the event loop between: 20,000 filed links read in one statement would hold
 * every other request for about 0.1 s on SQLite (decision 0083).
 */
async function collectionLinkIds(
  db: Executor,
  collectionIds: readonly string[],
): Promise<Map<string, string[]>> {
  const linksOf = new Map<string, CollectionLink[]>(collectionIds.map((id) => [id, []]))
  for (let i = 0; i < collectionIds.length; i += COLLECTIONS_PER_READ) {
    const chunk = collectionIds.slice(i, i + COLLECTIONS_PER_READ)
    let after: CollectionLink | null = null
    for (;;) {
      const rows = await findCollectionLinksPage(db, chunk, after, COLLECTION_LINKS_PER_READ)
      for (const row of rows) linksOf.get(row.collection_id)?.push(row)
      after = rows.at(-1) ?? null
      if (rows.length < COLLECTION_LINKS_PER_READ) break
      await nextTurn()
    }
  }
  return new Map(
    [...linksOf].map(([id, links]) => [id, links.sort(byPosition).map((link) => link.link_id)]),
  )
}

/** Whether the export lists every link the caller sees (no filter of the list's). */
const unfiltered = (query: ExportQuery) =>
  Object.entries(query).every(([key, value]) => key === 'format' || value === undefined)

/**
 * The collections an export carries, with their exported links in order (positions in the
 * export's links): those the caller sees (within a token's boundary) that hold an exported link,
 * or every one they see when the export is not filtered; with `collection_id`, that one.
 */
async function exportedCollections(
  deps: Deps,
  caller: Caller,
  query: ExportQuery,
  ids: readonly string[],
): Promise<LinkExport['collections']> {
  const reachable = caller.grant?.organizations ?? null
  const visible = (
    await findVisibleCollectionsToExport(
      deps.db,
      caller.user.id,
      EXPORT_COLLECTIONS,
      query.collection_id,
    )
  ).filter(
    (row) =>
      row.organization_id === null || reachable === null || reachable.has(row.organization_id),
  )
  const positionOf = new Map(ids.map((id, position) => [id, position]))
  const linksOf = await collectionLinkIds(
    deps.db,
    visible.map((row) => row.id),
  )
  const all = unfiltered(query)
  return visible.flatMap((row) => {
    const links = (linksOf.get(row.id) ?? []).flatMap((id) => {
      const position = positionOf.get(id)
      return position === undefined ? [] : [position]
    })
    return links.length > 0 || all ? [{ name: row.name, description: row.description, links }] : []
  })
}

export interface ExportFile {
  filename: string
  contentType: string
  /**
   * The file's text in parts, a turn of the event loop between them: 10,000 links serialized at
   * once would hold every other request for about 0.2 s (decision 0083).
   */
  parts: AsyncIterable<string>
}

/** Each value as JSON, made as it is read. */
function* eachAsJson(values: readonly unknown[]): Generator<string> {
  for (const value of values) yield JSON.stringify(value)
}

/** The JSON export in parts: its fields, its links a part at a time, then its collections. */
function* jsonExportParts(file: LinkExport): Generator<string> {
  const { links, collections, ...fields } = file
  // The fields' object, opened again for the two arrays that follow.
  yield `${JSON.stringify(fields).slice(0, -1)},"links":[`
  yield* joinedInParts(eachAsJson(links), ',')
  yield `],"collections":${JSON.stringify(collections)}}`
}

/** The visible links matching the filters, newest first, with the caller's tags by name. */
export async function exportLinks(
  deps: Deps,
  caller: Caller,
  query: ExportQuery,
): Promise<ExportFile> {
  const userId = caller.user.id
  const filters = linkFilters(query, caller)
  const links: LinkExport['links'] = []
  const ids: string[] = []
  let window: PageWindow = { limit: PAGE, after: null }
  let truncated = false
  // Pages through the list's own keyset, up to the export's bound.
  for (;;) {
    const rows = await listVisibleLinks(deps.db, userId, filters, window)
    const page = rows.slice(0, window.limit)
    const tagsOf = await findOwnTagsOfLinks(
      deps.db,
      userId,
      page.map((row) => row.id),
    )
    const clicksOf = await findClicksOfLinks(
      deps.db,
      page.map((row) => row.id),
    )
    for (const row of page) {
      ids.push(row.id)
      links.push({
        url: row.url,
        title: row.title,
        slug: row.slug,
        forwarding_enabled: row.forwarding_enabled,
        tags: (tagsOf.get(row.id) ?? []).map((tag) => tag.name),
        organization: row.organization_name,
        clicks: clicksOf.get(row.id) ?? [],
        created_at: row.created_at,
        updated_at: row.updated_at,
      })
    }
    const last = page.at(-1)
    if (rows.length <= window.limit || last === undefined) break
    if (links.length >= MAX_EXPORT_ITEMS) {
      truncated = true
      break
    }
    // Other requests get their turn between pages: on SQLite a page is read without one.
    await nextTurn()
    window = {
      limit: Math.min(PAGE, MAX_EXPORT_ITEMS - links.length),
      // The list's own keyset: a collection's order, or newest first.
      after:
        filters.collectionId === undefined
          ? [last.created_at, last.id]
          : [String((last as { position_sort?: unknown }).position_sort), last.id],
    }
  }
  const collections = await exportedCollections(deps, caller, query, ids)
  const exportedAt = deps.clock.now().toISOString()
  const stem = `switchboard-links-${exportedAt.slice(0, 10)}`
  if (query.format === 'html') {
    const lines = netscapeBookmarkLines(
      links.map((link) => ({
        url: link.url,
        title: link.title,
        slug: link.slug,
        tags: link.tags,
        createdAt: link.created_at,
        updatedAt: link.updated_at,
      })),
      collections
        .filter((collection) => collection.links.length > 0)
        .map((collection) => ({ name: collection.name, bookmarks: collection.links })),
    )
    return {
      filename: `${stem}.html`,
      contentType: 'text/html; charset=utf-8',
      parts: withTurns(joinedInParts(lines, '\n')),
    }
  }
  return {
    filename: `${stem}.json`,
    contentType: 'application/json; charset=utf-8',
    parts: withTurns(
      jsonExportParts({
        format: JSON_FORMAT,
        version: 1,
        exported_at: exportedAt,
        truncated,
        links,
        collections,
      }),
    ),
  }
}
