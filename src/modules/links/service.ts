/**
 * Links (docs/API.md#links): personal, or shared with an organization the creator
 * belongs to.
 *
 * - Everyone sees their personal links and the links of their organizations; anything else is
 *   404, like a link that does not exist.
 * - A shared link may be changed or deleted by its creator (while a member) and by the
 *   organization's owners and admins (roles.ts `manage_links`); other members read it (403).
 * - A link shared with teams (`team_ids`, shares.service.ts) is seen by their members, read-only.
 * - `tag_ids` are the caller's own tags: each user labels links for themselves, and sees only their
 *   own tags on a shared link.
 * - A slug names at most one link per owner (the user's personal links; one organization's links):
 *   409 otherwise. Across owners it may repeat — /go/{slug} then offers a choice.
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/client.js'
import type { Executor } from '../../db/schema.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError, invalidField } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { toPage, type Page } from '../../lib/pagination.js'
import { reachesOrganization, type Caller, type RequestContext } from '../../identity/caller.js'
import { organizationNotFound, requirePermission } from '../organizations/access.js'
import { can } from '../organizations/roles.js'
import { findOwnTagIds } from '../tags/repo.js'
import {
  findDailyClicks,
  insertLink,
  replaceOwnLinkTags,
  updateLink as updateLinkRow,
  findLinkIdBySlug,
  lockLinksInIdOrder,
  type LinkColumns,
  type LinkOwner,
} from './repo.js'
import type { LinkFilters } from './link-filters.js'
import { countVisibleLinks, listVisibleLinks } from './list.repo.js'
import { findVisibleLink, type VisibleLink } from './visible.repo.js'
import {
  MAX_COUNTED_LINKS,
  type CreateLinkBody,
  type LinkClicks,
  type LinkCount,
  type LinkFilterQuery,
  type LinkQuery,
  type LinkView,
  type SlugAvailability,
  type SlugAvailabilityQuery,
  type UpdateLinkBody,
} from './schemas.js'
import { normalizeLinkUrl } from './url.js'
import { firstDayOfLast, keepRecentClicksCurrent, RECENT_CLICK_DAYS } from './recent-clicks.js'
import { deletePin, insertPin, syncSlugKeys } from './shares.repo.js'
import { findViewExtras, type ViewExtras } from './view-extras.repo.js'
import { setLinkTeams } from './shares.service.js'
import { dropAfterOwnerChange } from './ownership.repo.js'
import { recordAudits, type AuditEntry } from '../audit/service.js'
import { lookupKey, writeKey } from './slug-matching.js'

export function linkNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such link.' })
}

function slugTaken(error: unknown): unknown {
  return isUniqueViolation(error)
    ? new AppError('ALREADY_EXISTS', {
        message: 'Another link of the same owner already has this slug.',
        details: 'slug',
      })
    : error
}

const DAY_MS = 24 * 60 * 60 * 1000
const CLICK_VIEW_DAYS = RECENT_CLICK_DAYS
const CLICK_SERIES_DAYS = 90

/** The first UTC day of the last `days` days, today included. */
function firstDayOf(deps: Deps, days: number): string {
  return firstDayOfLast(days, deps.clock.now())
}

function toView(link: VisibleLink, userId: string, extras: ViewExtras): LinkView {
  const own = link.organization_id === null && link.user_id === userId
  const organization = link.role === null ? null : link.organization_name
  return {
    id: link.id,
    url: link.url,
    title: link.title,
    slug: link.slug,
    forwarding_enabled: link.forwarding_enabled,
    tag_ids: extras.tagIds.get(link.id) ?? [],
    organization_id: link.organization_id,
    clicks_30d: extras.clicks.get(link.id) ?? 0,
    can_change: mayChange(link, userId),
    team_ids: extras.teamIds.get(link.id) ?? [],
    shared_via: own ? null : { organization, teams: extras.seenByTeams.get(link.id) ?? [] },
    pinned: extras.pinned.has(link.id),
    created_at: link.created_at,
    updated_at: link.updated_at,
  }
}

async function viewOf(
  ex: Executor,
  userId: string,
  linkId: string,
  fromDay: string,
): Promise<LinkView> {
  const link = await findVisibleLink(ex, userId, linkId)
  if (link === null) throw linkNotFound()
  return toView(link, userId, await findViewExtras(ex, userId, [linkId], fromDay))
}

/** The link's clicks per UTC day over the last 90 days, zeros included. */
export async function getLinkClicks(
  deps: Deps,
  caller: Caller,
  linkId: string,
): Promise<LinkClicks> {
  // A link of an organization outside an API token's boundary is not found, as for a non-member.
  reachableLink(caller, await findVisibleLink(deps.db, caller.user.id, linkId))
  const first = deps.clock.now().getTime() - (CLICK_SERIES_DAYS - 1) * DAY_MS
  const counted = new Map(
    (await findDailyClicks(deps.db, linkId, firstDayOf(deps, CLICK_SERIES_DAYS))).map((row) => [
      row.day,
      row.clicks,
    ]),
  )
  const days = Array.from({ length: CLICK_SERIES_DAYS }, (_, index) => {
    const day = new Date(first + index * DAY_MS).toISOString().slice(0, 10)
    return { day, clicks: counted.get(day) ?? 0 }
  })
  return { link_id: linkId, days, total: days.reduce((sum, entry) => sum + entry.clicks, 0) }
}

/**
 * Every id must be one of the caller's own tags: 400 otherwise (another user's tag is unknown
 * here).
 */
async function assertOwnTags(
  ex: Executor,
  userId: string,
  tagIds: readonly string[],
): Promise<void> {
  const own = await findOwnTagIds(ex, userId, tagIds)
  if (own.length !== tagIds.length) throw invalidField('tag_ids', 'must name your own tags')
}

/** Writes the caller's tags; a tag deleted meanwhile is reported like an unknown one. */
async function writeTags(
  ex: Executor,
  userId: string,
  linkId: string,
  tagIds: readonly string[],
): Promise<void> {
  try {
    await replaceOwnLinkTags(ex, userId, linkId, tagIds)
  } catch (error) {
    if (isForeignKeyViolation(error)) throw invalidField('tag_ids', 'must name your own tags')
    throw error
  }
}

/**
 * The owner of a personal link, and the creator of an organization's link (while a member) and the
 * organization's owners and admins may change it; a team's members only read what it shares.
 */
export function mayChange(link: VisibleLink, userId: string): boolean {
  if (link.organization_id === null) return link.user_id === userId
  return link.role !== null && (link.created_by === userId || can(link.role, 'manage_links'))
}

export function assertMayChange(link: VisibleLink, userId: string): void {
  if (mayChange(link, userId)) return
  throw new AppError('FORBIDDEN', {
    message:
      "Only the link's creator and the organization's owners and admins may change this link.",
  })
}

/**
 * An organization outside the API token's boundary is as unknown as one the caller does
 * not belong to (404), and so are its links.
 */
export function assertReachable(caller: Caller, organizationId: string | null | undefined): void {
  if (organizationId != null && !reachesOrganization(caller, organizationId))
    throw organizationNotFound()
}

/** Whether the link is within the caller's reach (an API token's organization boundary). */
export function reachesLink(caller: Caller, link: { organization_id: string | null }): boolean {
  return link.organization_id === null || reachesOrganization(caller, link.organization_id)
}

function reachableLink<T extends { organization_id: string | null }>(
  caller: Caller,
  link: T | null,
): T {
  if (
    link === null ||
    (link.organization_id !== null && !reachesOrganization(caller, link.organization_id))
  )
    throw linkNotFound()
  return link
}

/**
 * The list's query as repo filters (the export takes the same), within the caller's organization
 * boundary.
 */
export function linkFilters(query: LinkFilterQuery, caller: Caller): LinkFilters {
  // An organization outside the boundary filters to nothing, as one the caller is not in does.
  const reachable = caller.grant?.organizations ?? null
  return {
    ...(reachable !== null && { reachable }),
    ...(query.tag_id !== undefined && { tagId: query.tag_id }),
    ...(query.q !== undefined && { q: query.q }),
    ...(query.organization_id !== undefined && { organizationId: query.organization_id }),
    ...(query.owner !== undefined && { owner: query.owner }),
    ...(query.scope !== undefined && { scope: query.scope }),
    ...(query.pinned !== undefined && { pinned: query.pinned }),
    ...(query.collection_id !== undefined && { collectionId: query.collection_id }),
  }
}

export async function listLinks(
  deps: Deps,
  caller: Caller,
  query: LinkQuery,
): Promise<Page<LinkView>> {
  const window = pageWindow(query)
  const byClicks = query.sort === 'clicks_30d'
  const filters: LinkFilters = {
    ...linkFilters(query, caller),
    ...(byClicks && { mostClicked: true }),
  }
  if (byClicks) await keepRecentClicksCurrent(deps.db, deps.clock.now())
  const rows = await listVisibleLinks(deps.db, caller.user.id, filters, window)
  const ids = rows.slice(0, window.limit).map((row) => row.id)
  const extras = await findViewExtras(
    deps.db,
    caller.user.id,
    ids,
    firstDayOf(deps, CLICK_VIEW_DAYS),
  )
  return toPage(
    rows,
    window.limit,
    (row) => toView(row, caller.user.id, extras),
    // The sort key as the query computed it (a flush between the two reads cannot skew the cursor).
    (row) =>
      query.collection_id !== undefined
        ? [String(Number((row as { position_sort?: unknown }).position_sort ?? 0)), row.id]
        : byClicks
          ? [String(Number((row as { clicks_sort?: unknown }).clicks_sort ?? 0)), row.id]
          : [row.created_at, row.id],
  )
}

/**
 * How many links the list holds with these filters, for "1–25 of 228" — or "of 1,000+": past
 * MAX_COUNTED_LINKS the count stops, so that its cost stays that of a page's.
 */
export async function countLinks(
  deps: Deps,
  caller: Caller,
  query: LinkFilterQuery,
): Promise<LinkCount> {
  const filters = linkFilters(query, caller)
  const total = await countVisibleLinks(deps.db, caller.user.id, filters, MAX_COUNTED_LINKS)
  return { total: Math.min(total, MAX_COUNTED_LINKS), capped: total > MAX_COUNTED_LINKS }
}

/**
 * The owner a new link would have: the caller, or an organization the caller may share with (404
 * otherwise).
 */
export async function linkOwnerFor(
  ex: Executor,
  userId: string,
  organizationId: string | null | undefined,
): Promise<LinkOwner> {
  if (organizationId == null) return { userId, organizationId: null }
  await requirePermission(ex, organizationId, userId, 'share_links')
  return { userId: null, organizationId }
}

/** Whether a new link of the caller's (or of their organization) may take this slug. */
export async function checkSlugAvailability(
  deps: Deps,
  caller: Caller,
  query: SlugAvailabilityQuery,
): Promise<SlugAvailability> {
  assertReachable(caller, query.organization_id)
  const owner = await linkOwnerFor(deps.db, caller.user.id, query.organization_id)
  return {
    slug: query.slug,
    available: (await findLinkIdBySlug(deps.db, owner, await lookupKey(deps, query.slug))) === null,
  }
}

export async function getLink(deps: Deps, caller: Caller, linkId: string): Promise<LinkView> {
  // Only a token with a boundary pays for the extra read.
  if (caller.grant?.organizations != null)
    reachableLink(caller, await findVisibleLink(deps.db, caller.user.id, linkId))
  return viewOf(deps.db, caller.user.id, linkId, firstDayOf(deps, CLICK_VIEW_DAYS))
}

export async function createLink(
  deps: Deps,
  caller: Caller,
  input: CreateLinkBody,
  ctx: RequestContext,
): Promise<LinkView> {
  const userId = caller.user.id
  const organizationId = input.organization_id ?? null
  const slug = input.slug ?? null
  assertReachable(caller, organizationId)
  const link: LinkColumns = {
    user_id: organizationId === null ? userId : null,
    organization_id: organizationId,
    url: normalizeLinkUrl(input.url),
    title: input.title ?? null,
    slug,
    slug_key: null,
    forwarding_enabled: input.forwarding_enabled ?? true,
  }
  const id = newId()
  try {
    return await deps.db.transaction().execute(async (tx) => {
      if (organizationId !== null)
        await requirePermission(tx, organizationId, userId, 'share_links')
      await assertOwnTags(tx, userId, input.tag_ids ?? [])
      try {
        await insertLink(tx, {
          ...link,
          slug_key: await writeKey(tx, slug),
          id,
          created_by: userId,
          created_at: deps.clock.now().toISOString(),
        })
      } catch (error) {
        // The organization was deleted between the membership check and the insert.
        if (isForeignKeyViolation(error)) throw organizationNotFound()
        throw error
      }
      await writeTags(tx, userId, id, input.tag_ids ?? [])
      const shares =
        input.team_ids !== undefined && input.team_ids.length > 0
          ? await setLinkTeams(tx, deps, caller, id, input.team_ids)
          : []
      // Read before the audit append, which holds the audit tree's head until the commit.
      const view = await viewOf(tx, userId, id, firstDayOf(deps, CLICK_VIEW_DAYS))
      await recordAudits(tx, deps.clock, ctx, shares)
      return view
    })
  } catch (error) {
    throw slugTaken(error)
  }
}

/** A move by PATCH is a change of owner: audited as a transfer is, naming where it came from. */
function moveAudit(caller: Caller, link: VisibleLink, changes: Partial<LinkColumns>): AuditEntry {
  return {
    action: 'link.transfer',
    actor: caller.user,
    target: { type: 'link', id: link.id },
    metadata: {
      from:
        link.organization_id === null
          ? { user_id: link.user_id }
          : { organization_id: link.organization_id },
      to:
        changes.organization_id == null
          ? { user_id: caller.user.id }
          : { organization_id: changes.organization_id },
      slug: link.slug,
    },
  }
}

/**
 * Changes a link. Moving it (`organization_id`) needs the right to change it where it is and
 * membership where it goes; made personal, it becomes the caller's. A move is a change of owner
 * like a transfer (ownership.repo.ts dropAfterOwnerChange); removing teams drops their members'
 * tags if they lose sight (shares.service.ts setLinkTeams).
 */
export async function updateLink(
  deps: Deps,
  caller: Caller,
  linkId: string,
  patch: UpdateLinkBody,
  ctx: RequestContext,
): Promise<LinkView> {
  const userId = caller.user.id
  const url = patch.url === undefined ? undefined : normalizeLinkUrl(patch.url)
  try {
    return await deps.db.transaction().execute(async (tx) => {
      // A move or a change of teams drops other people's tags and collection entries: the link is
      // locked first, as every writer of links locks them (repo.ts lockLinksInIdOrder), then read.
      if (patch.organization_id !== undefined || patch.team_ids !== undefined)
        await lockLinksInIdOrder(tx, [linkId])
      const link = reachableLink(caller, await findVisibleLink(tx, userId, linkId))
      assertMayChange(link, userId)
      const moveTo = patch.organization_id
      assertReachable(caller, moveTo)
      if (moveTo != null && moveTo !== link.organization_id)
        await requirePermission(tx, moveTo, userId, 'share_links')
      if (patch.tag_ids !== undefined) await assertOwnTags(tx, userId, patch.tag_ids)
      const changes: Partial<LinkColumns> = {
        ...(url !== undefined && { url }),
        ...(patch.title !== undefined && { title: patch.title }),
        ...(patch.slug !== undefined && {
          slug: patch.slug,
          slug_key: await writeKey(tx, patch.slug),
        }),
        ...(patch.forwarding_enabled !== undefined && {
          forwarding_enabled: patch.forwarding_enabled,
        }),
        ...(moveTo !== undefined &&
          moveTo !== link.organization_id && {
            organization_id: moveTo,
            user_id: moveTo === null ? userId : null,
          }),
      }
      try {
        await updateLinkRow(tx, linkId, { ...changes, updated_at: deps.clock.now().toISOString() })
      } catch (error) {
        if (isForeignKeyViolation(error)) throw organizationNotFound()
        throw error
      }
      if (patch.tag_ids !== undefined) await writeTags(tx, userId, linkId, patch.tag_ids)
      if (changes.slug_key !== undefined) await syncSlugKeys(tx, [linkId])
      const shares =
        patch.team_ids === undefined
          ? []
          : await setLinkTeams(tx, deps, caller, linkId, patch.team_ids)
      // A change of owner, as a transfer: out of the former owner's collections, then the tags of
      // those who no longer see it.
      if (changes.organization_id !== undefined) await dropAfterOwnerChange(tx, [linkId])
      // Read before the audit append, which holds the audit tree's head until the commit.
      const view = await viewOf(tx, userId, linkId, firstDayOf(deps, CLICK_VIEW_DAYS))
      const moved = changes.organization_id === undefined ? [] : [moveAudit(caller, link, changes)]
      await recordAudits(tx, deps.clock, ctx, [...moved, ...shares])
      return view
    })
  } catch (error) {
    throw slugTaken(error)
  }
}

/** Pins the link for the caller alone (any link they see); pinning twice changes nothing. */
export async function pinLink(deps: Deps, caller: Caller, linkId: string): Promise<void> {
  reachableLink(caller, await findVisibleLink(deps.db, caller.user.id, linkId))
  try {
    await insertPin(deps.db, caller.user.id, linkId, deps.clock.now().toISOString())
  } catch (error) {
    // Deleted between the read and the insert.
    if (isForeignKeyViolation(error)) throw linkNotFound()
    throw error
  }
}

export async function unpinLink(deps: Deps, caller: Caller, linkId: string): Promise<void> {
  reachableLink(caller, await findVisibleLink(deps.db, caller.user.id, linkId))
  await deletePin(deps.db, caller.user.id, linkId)
}
