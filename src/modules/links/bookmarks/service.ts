/**
 * Import and export of links (issue 13): the Netscape bookmark file every browser writes, and
 * Switchboard's own JSON.
 *
 * Import is per item: every bookmark that passes the rules becomes a link, every other one is
 * reported with its reason (invalid URL or slug, a URL or slug the owner already has — in the
 * database or earlier in the same file). What is imported is written in one transaction with the
 * owner locked, so two imports of the same file one after the other, or at the same time, create
 * each link once. A failure of the file as a whole (not a bookmark file, not JSON, too many items)
 * is a 400 and imports nothing.
 */
import type { Deps } from '../../../deps.js'
import type { PageWindow } from '../../../db/keyset.js'
import type { Executor } from '../../../db/schema.js'
import { invalidField } from '../../../errors.js'
import { newId } from '../../../lib/ids.js'
import type { Caller } from '../../auth/caller.js'
import { recordAudit, type RequestContext } from '../../audit/service.js'
import { findTagIdsByNameKeys, insertTagsUnlessTaken } from '../../tags/repo.js'
import { findOwnTagsOfLinks, findTakenSlugKeys, findTakenUrls, insertLinks, listVisibleLinks, lockLinkOwner, type LinkOwner } from '../repo.js'
import { assertReachable, linkFilters, linkOwnerFor } from '../service.js'
import { cleanBookmark, Skip, type BookmarkCandidate, type CleanBookmark } from './candidate.js'
import { JSON_FORMAT, parseJsonLinks } from './json-format.js'
import { parseNetscapeBookmarks, writeNetscapeBookmarks } from './netscape.js'
import { MAX_EXPORT_ITEMS, MAX_IMPORT_ITEMS, type ExportQuery, type ImportBody, type ImportReport, type LinkExport } from './schemas.js'

type Skipped = ImportReport['skipped'][number]

const PAGE = 200

async function readCandidates(body: ImportBody): Promise<Array<BookmarkCandidate | null>> {
  if (body.format === 'json') return parseJsonLinks(body.content)
  const file = await parseNetscapeBookmarks(body.content)
  if (!file.isBookmarkFile && file.bookmarks.length === 0) {
    throw invalidField('content', 'is not a bookmark file (the Netscape bookmark HTML that browsers export)')
  }
  return file.bookmarks
}

const shownUrl = (candidate: BookmarkCandidate | null) => (typeof candidate?.url === 'string' ? candidate.url.slice(0, 300) : null)

/** Applies the rules of a link and the owner's existing URLs and slugs; what remains is imported. */
async function sortOut(
  ex: Executor,
  owner: LinkOwner,
  candidates: ReadonlyArray<BookmarkCandidate | null>,
): Promise<{ accepted: CleanBookmark[]; skipped: Skipped[] }> {
  const cleaned = candidates.map((candidate) => (candidate === null ? new Skip('invalid_item', 'is not a link object') : cleanBookmark(candidate)))
  const clean = cleaned.filter((item): item is CleanBookmark => !(item instanceof Skip))
  const takenUrls = await findTakenUrls(ex, owner, [...new Set(clean.map((item) => item.url))])
  const takenSlugs = await findTakenSlugKeys(ex, owner, [...new Set(clean.flatMap((item) => (item.slugKey === null ? [] : [item.slugKey])))])
  const accepted: CleanBookmark[] = []
  const skipped: Skipped[] = []
  cleaned.forEach((item, index) => {
    let verdict = item
    if (!(verdict instanceof Skip)) {
      if (takenUrls.has(verdict.url)) verdict = new Skip('duplicate_url', 'a link to this URL exists already')
      else if (verdict.slugKey !== null && takenSlugs.has(verdict.slugKey)) verdict = new Skip('slug_taken', 'another link has this slug')
    }
    if (verdict instanceof Skip) {
      skipped.push({ position: index + 1, url: shownUrl(candidates[index] ?? null), reason: verdict.reason, message: verdict.message })
      return
    }
    // Later duplicates in the same file are reported like existing ones.
    takenUrls.add(verdict.url)
    if (verdict.slugKey !== null) takenSlugs.add(verdict.slugKey)
    accepted.push(verdict)
  })
  return { accepted, skipped }
}

/** The caller's tags with these names, creating the missing ones: lower-cased name → id. */
async function tagsNamed(
  ex: Executor,
  userId: string,
  names: readonly string[],
  now: string,
): Promise<{ ids: Map<string, string>; created: number }> {
  const byKey = new Map(names.map((name) => [name.toLowerCase(), name]))
  const existing = await findTagIdsByNameKeys(ex, userId, [...byKey.keys()])
  const missing = [...byKey].filter(([key]) => !existing.has(key))
  await insertTagsUnlessTaken(
    ex,
    missing.map(([key, name]) => ({ id: newId(), user_id: userId, name, name_key: key, color: null, created_at: now })),
  )
  const ids = await findTagIdsByNameKeys(ex, userId, [...byKey.keys()])
  return { ids, created: ids.size - existing.size }
}

export async function importLinks(deps: Deps, caller: Caller, body: ImportBody, ctx: RequestContext): Promise<ImportReport> {
  const userId = caller.user.id
  const candidates = await readCandidates(body)
  if (candidates.length > MAX_IMPORT_ITEMS) {
    throw invalidField('content', `holds ${candidates.length} links; one import takes at most ${MAX_IMPORT_ITEMS} (split the file)`)
  }
  return deps.db.transaction().execute(async (tx) => {
    assertReachable(caller, body.organization_id)
    const owner = await linkOwnerFor(tx, userId, body.organization_id)
    await lockLinkOwner(tx, owner)
    const { accepted, skipped } = await sortOut(tx, owner, candidates)
    const now = deps.clock.now().toISOString()
    const tags = await tagsNamed(tx, userId, [...new Set(accepted.flatMap((item) => item.tags))], now)
    const links = accepted.map((item) => ({
      id: newId(),
      user_id: owner.userId,
      organization_id: owner.organizationId,
      url: item.url,
      title: item.title,
      slug: item.slug,
      slug_key: item.slugKey,
      forwarding_enabled: item.forwardingEnabled,
      created_by: userId,
      created_at: now,
    }))
    const linkTags = links.flatMap((link, index) =>
      [...new Set(accepted[index]!.tags.map((name) => tags.ids.get(name.toLowerCase())!))].map((tagId) => ({ link_id: link.id, tag_id: tagId })),
    )
    await insertLinks(tx, links, linkTags)
    const report = { imported: links.length, tags_created: tags.created, skipped }
    await recordAudit(tx, deps.clock, ctx, {
      action: 'links.import',
      actor: { id: userId, email: caller.user.email },
      target: owner.organizationId === null ? { type: 'user', id: userId } : { type: 'organization', id: owner.organizationId },
      metadata: { format: body.format, imported: report.imported, skipped: skipped.length, tags_created: report.tags_created },
    })
    return report
  })
}

export interface ExportFile {
  filename: string
  contentType: string
  body: string | LinkExport
}

/** The visible links matching the filters, newest first, with the caller's tags by name. */
export async function exportLinks(deps: Deps, caller: Caller, query: ExportQuery): Promise<ExportFile> {
  const userId = caller.user.id
  const filters = linkFilters(query, caller)
  const links: LinkExport['links'] = []
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
    for (const row of page) {
      links.push({
        url: row.url,
        title: row.title,
        slug: row.slug,
        forwarding_enabled: row.forwarding_enabled,
        tags: (tagsOf.get(row.id) ?? []).map((tag) => tag.name),
        organization: row.organization_name,
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
    window = { limit: Math.min(PAGE, MAX_EXPORT_ITEMS - links.length), after: [last.created_at, last.id] }
  }
  const exportedAt = deps.clock.now().toISOString()
  const stem = `switchboard-links-${exportedAt.slice(0, 10)}`
  if (query.format === 'html') {
    const html = writeNetscapeBookmarks(
      links.map((link) => ({
        url: link.url,
        title: link.title,
        slug: link.slug,
        tags: link.tags,
        createdAt: link.created_at,
        updatedAt: link.updated_at,
      })),
    )
    return { filename: `${stem}.html`, contentType: 'text/html; charset=utf-8', body: html }
  }
  return {
    filename: `${stem}.json`,
    contentType: 'application/json; charset=utf-8',
    body: { format: JSON_FORMAT, version: 1, exported_at: exportedAt, truncated, links },
  }
}
