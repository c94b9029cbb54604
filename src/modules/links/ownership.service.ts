/**
 * A link's ownership: deleting keeps it 30 days in "Recently deleted", restorable with
 * its tags and click counts; a link's owner — the person, or an organization's owners and admins —
 * can transfer it to a fellow member of one of their organizations or to an organization they may
 * share links with. Every delete, restore and transfer is in the audit log.
 *
 * - Restore puts the link back with its id; a slug taken meanwhile by another link of the same
 *   owner is 409 on `slug` unless the request names another slug or none (`slug: null`).
 * - Deleted links older than 30 days are purged at the next delete or list (and are never
 *   restored).
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/client.js'
import type { Executor } from '../../db/schema.js'
import { pageWindow } from '../../db/keyset.js'
import { AppError, invalidField } from '../../errors.js'
import { toPage, type Page, type PageQuery } from '../../lib/pagination.js'
import { recordAudit } from '../audit/service.js'
import { reachesOrganization, type RequestContext, type Caller } from '../../identity/caller.js'
import { organizationNotFound, requirePermission } from '../organizations/access.js'
import { can } from '../organizations/roles.js'
import { findUserById } from '../users/repo.js'
import { deleteLink as deleteLinkRow, insertLinkRow, lockLinksInIdOrder } from './repo.js'
import { findVisibleLink, type VisibleLink } from './visible.repo.js'
import {
  dropAfterOwnerChange,
  findExistingTagIds,
  findRestorable,
  insertDeletedLink,
  insertLinkTagsAndClicks,
  listRestorable,
  purgeDeletedLinks,
  readLinkForSnapshot,
  removeDeletedLink,
  setLinkOwner,
  shareAnOrganization,
  type DeletedLinkRecord,
  type LinkSnapshot,
} from './ownership.repo.js'
import type {
  LinkView,
  DeletedLinkView,
  RestoreLinkBody,
  TransferLinkBody,
  TransferredLink,
} from './schemas.js'
import { assertMayChange, getLink } from './service.js'
import { writeKey } from './slug-matching.js'
import { offerLink } from './transfer-offers.service.js'

export const RESTORE_DAYS = 30
const DAY_MS = 24 * 60 * 60 * 1000

function linkNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such link.' })
}

/** The oldest deletion time still inside the 30 days. */
export function restoreHorizon(deps: Deps): string {
  return new Date(deps.clock.now().getTime() - RESTORE_DAYS * DAY_MS).toISOString()
}

function reachable(caller: Caller, link: VisibleLink | null): VisibleLink {
  if (
    link === null ||
    (link.organization_id !== null && !reachesOrganization(caller, link.organization_id))
  )
    throw linkNotFound()
  return link
}

/**
 * Deletes the link into "Recently deleted" (one transaction: the link, its copy and the audit
 * event).
 */
export async function deleteLinkKeepingCopy(
  deps: Deps,
  caller: Caller,
  linkId: string,
  ctx: RequestContext,
): Promise<void> {
  const now = deps.clock.now().toISOString()
  await deps.db.transaction().execute(async (tx) => {
    const link = reachable(caller, await findVisibleLink(tx, caller.user.id, linkId))
    assertMayChange(link, caller.user.id)
    await purgeDeletedLinks(tx, restoreHorizon(deps))
    const deleted = await moveToRecentlyDeleted(tx, linkId, caller.user.id, now)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'link.delete',
      actor: caller.user,
      target: { type: 'link', id: linkId },
      metadata: { organization_id: deleted.organization_id, slug: deleted.slug },
    })
  })
}

/**
 * Inside the caller's transaction: copies the link (with its tags and clicks) into "Recently
 * deleted" and deletes it — what every deletion does, one link or a bulk action's many. A link
 * deleted meanwhile (a concurrent delete) is 404, as its own check would have been.
 */
export async function moveToRecentlyDeleted(
  tx: Executor,
  linkId: string,
  deletedBy: string,
  now: string,
): Promise<{ organization_id: string | null; slug: string | null }> {
  const current = await readLinkForSnapshot(tx, linkId)
  if (current === null) throw linkNotFound()
  // The row goes first: a concurrent deletion of the same link waits on it here and then finds
  // nothing (404), instead of colliding on the copy (the snapshot was read just before).
  // Tags, clicks and go-link preferences go with the row (foreign keys); the copy keeps tags and
  // clicks.
  if (!(await deleteLinkRow(tx, linkId))) throw linkNotFound()
  // A link deleted, restored and deleted again replaces its older copy.
  await removeDeletedLink(tx, linkId)
  await insertDeletedLink(tx, {
    id: linkId,
    user_id: current.link.user_id,
    organization_id: current.link.organization_id,
    created_by: current.link.created_by,
    deleted_by: deletedBy,
    url: current.link.url,
    title: current.link.title,
    slug: current.link.slug,
    deleted_at: now,
    snapshot: JSON.stringify(current.snapshot),
  })
  return { organization_id: current.link.organization_id, slug: current.link.slug }
}

function toDeletedView(row: DeletedLinkRecord): DeletedLinkView {
  return {
    id: row.id,
    url: row.url,
    title: row.title,
    slug: row.slug,
    organization_id: row.organization_id,
    deleted_at: row.deleted_at,
    purge_at: new Date(new Date(row.deleted_at).getTime() + RESTORE_DAYS * DAY_MS).toISOString(),
  }
}

export async function listRecentlyDeleted(
  deps: Deps,
  caller: Caller,
  query: PageQuery,
): Promise<Page<DeletedLinkView>> {
  const window = pageWindow(query)
  const horizon = restoreHorizon(deps)
  await purgeDeletedLinks(deps.db, horizon)
  const rows = await listRestorable(
    deps.db,
    caller.user.id,
    horizon,
    window,
    caller.grant?.organizations ?? null,
  )
  return toPage(rows, window.limit, toDeletedView, (row) => [row.deleted_at, row.id])
}

function slugConflict(slug: string): AppError {
  return new AppError('ALREADY_EXISTS', {
    message: `Another link of the same owner has the slug ${slug} now; restore it with another slug or none.`,
    details: 'slug',
  })
}

/** Restores a deleted link, answered as the caller now sees it. */
export async function restoreDeletedLink(
  deps: Deps,
  caller: Caller,
  id: string,
  body: RestoreLinkBody,
  ctx: RequestContext,
): Promise<LinkView> {
  const userId = caller.user.id
  await deps.db.transaction().execute(async (tx) => {
    const row = await findRestorable(tx, userId, id, restoreHorizon(deps))
    if (
      row === null ||
      (row.organization_id !== null && !reachesOrganization(caller, row.organization_id))
    )
      throw linkNotFound()
    if (row.organization_id !== null)
      await requirePermission(tx, row.organization_id, userId, 'share_links')
    // Taking it out first makes two simultaneous restores one restore: the other finds nothing.
    if (!(await removeDeletedLink(tx, id))) throw linkNotFound()
    const snapshot = JSON.parse(row.snapshot) as LinkSnapshot
    const slug = body.slug === undefined ? row.slug : body.slug
    await insertRestored(tx, row, snapshot, slug)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'link.restore',
      actor: caller.user,
      target: { type: 'link', id },
      metadata: {
        organization_id: row.organization_id,
        slug,
        ...(slug !== row.slug && { deleted_slug: row.slug }),
      },
    })
    return id
  })
  return getLink(deps, caller, id)
}

async function insertRestored(
  tx: Executor,
  row: DeletedLinkRecord,
  snapshot: LinkSnapshot,
  slug: string | null,
): Promise<void> {
  try {
    await insertLinkRow(tx, {
      id: row.id,
      user_id: row.user_id,
      organization_id: row.organization_id,
      created_by: row.created_by,
      url: row.url,
      title: row.title,
      slug,
      slug_key: await writeKey(tx, slug),
      forwarding_enabled: snapshot.forwarding_enabled,
      created_at: snapshot.created_at,
      updated_at: snapshot.updated_at,
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw slugConflict(slug ?? '')
    throw error
  }
  await insertLinkTagsAndClicks(
    tx,
    row.id,
    await findExistingTagIds(tx, snapshot.tag_ids),
    snapshot.clicks,
  )
}

/** What a transfer did: moved the link (to an organization, or oneself), or offered it. */
export type TransferOutcome = { moved: TransferredLink } | { offered: string }

/**
 * Transfers the link to an organization the caller may share links with, or offers it to a fellow
 * member of one of the caller's organizations (transfer-offers.service.ts: it moves when they
 * accept). Only the link's owner may: the person for a personal link, the organization's owners
 * and admins for a shared one.
 */
export async function transferLink(
  deps: Deps,
  caller: Caller,
  linkId: string,
  body: TransferLinkBody,
  ctx: RequestContext,
): Promise<TransferOutcome> {
  const userId = caller.user.id
  const toUser = body.user_id ?? null
  const toOrganization = body.organization_id ?? null
  if ((toUser === null) === (toOrganization === null))
    throw invalidField(
      'user_id',
      'name either a person (user_id) or an organization (organization_id)',
    )
  try {
    return await deps.db.transaction().execute(async (tx) => {
      // Locked before it is read: a concurrent transfer or move has committed by then, so the
      // right checked and the owner audited are the link's current ones.
      await lockLinksInIdOrder(tx, [linkId])
      const link = reachable(caller, await findVisibleLink(tx, userId, linkId))
      const owns =
        link.organization_id === null
          ? link.user_id === userId
          : link.role !== null && can(link.role, 'manage_links')
      if (!owns)
        throw new AppError('FORBIDDEN', {
          message:
            "Only the link's owner — you, or the organization's owners and admins — may transfer it.",
        })
      if (toOrganization !== null) {
        if (!reachesOrganization(caller, toOrganization)) throw organizationNotFound()
        await requirePermission(tx, toOrganization, userId, 'share_links')
      } else if (toUser !== userId) {
        // Only fellow members are offered: a transfer cannot probe who else has an account.
        const target = await findUserById(tx, toUser!)
        if (
          target === null ||
          target.disabled ||
          !(await shareAnOrganization(tx, userId, toUser!))
        ) {
          throw new AppError('NOT_FOUND', {
            message: 'No such person among the members of your organizations.',
            details: 'user_id',
          })
        }
        return { offered: (await offerLink(deps, tx, caller, link, toUser!, ctx)).id }
      }
      const owner =
        toOrganization !== null
          ? { user_id: null, organization_id: toOrganization }
          : { user_id: toUser, organization_id: null }
      try {
        await setLinkOwner(tx, linkId, owner, deps.clock.now().toISOString())
      } catch (error) {
        if (isForeignKeyViolation(error)) throw organizationNotFound()
        throw error
      }
      // Out of the former owner's collections, then the tags of those who no longer see it.
      await dropAfterOwnerChange(tx, [linkId])
      await recordAudit(tx, deps.clock, ctx, {
        action: 'link.transfer',
        actor: caller.user,
        target: { type: 'link', id: linkId },
        metadata: {
          from:
            link.organization_id === null
              ? { user_id: link.user_id }
              : { organization_id: link.organization_id },
          to: toOrganization !== null ? { organization_id: toOrganization } : { user_id: toUser },
          slug: link.slug,
        },
      })
      return { moved: { id: linkId, ...owner } }
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('ALREADY_EXISTS', {
        message: 'The new owner already has a link with this slug.',
        details: 'slug',
      })
    throw error
  }
}
