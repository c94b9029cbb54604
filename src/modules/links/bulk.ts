/**
 * One action on several links at once (the Links page's selection): add or remove one of
 * the caller's tags, share with an organization (or make personal), delete. All or nothing, in one
 * transaction: every link is checked as the single-link operation checks it (seen → else 404;
 * `share` and `delete` need the right to change it → else 403), and one refused link refuses the
 * whole action, so a person never has to find out which half happened. Written to the audit log as
 * one entry naming the action and the links.
 */
import type { Deps } from '../../deps.js'
import { isForeignKeyViolation, isUniqueViolation } from '../../db/client.js'
import { AppError, invalidField } from '../../errors.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { recordAudit } from '../audit/service.js'
import { organizationNotFound } from '../organizations/access.js'
import { findOwnTagIds } from '../tags/repo.js'
import { addTagToLinks, lockLinksInIdOrder, moveLinks, removeTagFromLinks } from './repo.js'
import { findVisibleLinks } from './visible.repo.js'
import { dropAfterOwnerChange, purgeDeletedLinks } from './ownership.repo.js'
import { moveToRecentlyDeleted, restoreHorizon } from './ownership.service.js'
import type { BulkLinksBody, BulkLinksResult } from './schemas.js'
import {
  assertMayChange,
  assertReachable,
  linkNotFound,
  linkOwnerFor,
  reachesLink,
} from './service.js'

export async function bulkLinks(
  deps: Deps,
  caller: Caller,
  input: BulkLinksBody,
  ctx: RequestContext,
): Promise<BulkLinksResult> {
  const userId = caller.user.id
  const ids = input.link_ids
  if ((input.action === 'add_tag' || input.action === 'remove_tag') && input.tag_id === undefined)
    throw invalidField('tag_id', 'is required')
  if (input.action === 'share' && input.organization_id === undefined)
    throw invalidField('organization_id', 'is required (null: personal)')
  const now = deps.clock.now().toISOString()
  try {
    return await deps.db.transaction().execute(async (tx) => {
      // Every action writes the links or rows that hold them (a tag row locks its link): locked
      // first, in id order, as every writer of several links does (repo.ts lockLinksInIdOrder),
      // and then read as they are. Tag rows written in the order asked could deadlock with a
      // bulk delete of the same links.
      await lockLinksInIdOrder(tx, ids)
      const links = await findVisibleLinks(tx, userId, ids)
      // One link not seen (or outside an API token's boundary) is reported like the single
      // operation's 404.
      if (links.length !== ids.length || !links.every((link) => reachesLink(caller, link)))
        throw linkNotFound()
      let changed = links
      switch (input.action) {
        case 'add_tag':
        case 'remove_tag': {
          const tagId = input.tag_id!
          if ((await findOwnTagIds(tx, userId, [tagId])).length !== 1)
            throw invalidField('tag_id', 'must name your own tag')
          if (input.action === 'add_tag') await addTagToLinks(tx, tagId, ids)
          else await removeTagFromLinks(tx, tagId, ids)
          break
        }
        case 'share': {
          const to = input.organization_id ?? null
          assertReachable(caller, to)
          for (const link of links) assertMayChange(link, userId)
          const owner = await linkOwnerFor(tx, userId, to)
          // Links already there stay as they are (a personal link stays its owner's).
          changed = links.filter((link) => link.organization_id !== to)
          const moved = changed.map((link) => link.id)
          await moveLinks(tx, moved, owner, now)
          // As a transfer does: out of the former owner's collections, then the tags of people
          // who no longer see a link (through those collections or the former owner) go too.
          await dropAfterOwnerChange(tx, moved)
          break
        }
        case 'delete':
          for (const link of links) assertMayChange(link, userId)
          // Each goes to "Recently deleted", restorable for 30 days, as a single delete does.
          await purgeDeletedLinks(tx, restoreHorizon(deps))
          for (const id of ids) await moveToRecentlyDeleted(tx, id, userId, now)
          break
      }
      await recordAudit(tx, deps.clock, ctx, {
        action: `links.bulk_${input.action}`,
        actor: { id: userId, email: caller.user.email },
        target: { type: 'user', id: userId },
        metadata: {
          count: changed.length,
          link_ids: changed.map((link) => link.id),
          ...(input.tag_id !== undefined &&
            input.action !== 'share' &&
            input.action !== 'delete' && { tag_id: input.tag_id }),
          ...(input.action === 'share' && { organization_id: input.organization_id ?? null }),
        },
      })
      return { action: input.action, count: changed.length }
    })
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('ALREADY_EXISTS', {
        message: 'A link of the target owner already has the slug of one of these links.',
        details: 'slug',
      })
    }
    if (isForeignKeyViolation(error))
      throw input.action === 'share'
        ? organizationNotFound()
        : invalidField('tag_id', 'must name your own tag')
    throw error
  }
}
