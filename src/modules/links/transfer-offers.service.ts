/**
 * Giving a link to a person is an offer they answer, like an invitation: the link stays the
 * sender's until the recipient accepts (docs/API.md#recently-deleted-and-transfer). So nobody can
 * plant a go-link among a colleague's own, and the sender learns nothing of the recipient's slugs:
 * a collision is the recipient's 409 at acceptance, and the offer stands until they rename theirs.
 *
 * - one standing offer per link (a new one replaces it), at most MAX_OFFERS_PER_SENDER a sender;
 * - valid 7 days; lapses when the link changes hands or is edited, or is deleted;
 * - accepting is one conditional DELETE of the offer in the transaction that moves the link: of
 *   concurrent accepts exactly one moves it;
 * - audited: `link.transfer_offer`, `link.transfer` (accepted), `link.transfer_decline`,
 *   `link.transfer_cancel`, `link.transfer_expire`; the recipient is mailed when mail works.
 */
import type { Deps } from '../../deps.js'
import { isUniqueViolation } from '../../db/client.js'
import type { Executor } from '../../db/schema.js'
import { AppError } from '../../errors.js'
import { newId } from '../../lib/ids.js'
import { addSeconds } from '../../lib/time.js'
import type { Caller, RequestContext } from '../../identity/caller.js'
import { recordAudit } from '../audit/service.js'
import { reserveUserMail } from '../mail/limits.js'
import { isMailConfigured, sendMail } from '../mail/service.js'
import { findUserById } from '../users/repo.js'
import { dropAfterOwnerChange, setLinkOwner } from './ownership.repo.js'
import type { VisibleLink } from './visible.repo.js'
import type { TransferredLink } from './schemas.js'
import { offerMail } from './transfer-offers.mail.js'
import {
  countOffersFrom,
  deleteExpiredOffers,
  findOffer,
  linkAsOffered,
  listOffers,
  replaceOffer,
  takeOffer,
  type OfferRecord,
  type OfferRow,
} from './transfer-offers.repo.js'
import type { TransferOfferLists, TransferOfferView } from './transfer-offers.schemas.js'

export const OFFER_TTL_SECONDS = 7 * 24 * 60 * 60
export const MAX_OFFERS_PER_SENDER = 100
const LISTED_OFFERS = 100

function toView(offer: OfferRecord): TransferOfferView {
  return {
    id: offer.id,
    link: { id: offer.link_id, slug: offer.slug, url: offer.url, title: offer.title },
    from: { id: offer.from_user_id, name: offer.from_name, email: offer.from_email },
    to: { id: offer.to_user_id, name: offer.to_name, email: offer.to_email },
    organization_id: offer.from_organization_id,
    created_at: offer.created_at,
    expires_at: offer.expires_at,
  }
}

const offerNotFound = () =>
  new AppError('NOT_FOUND', { message: 'No such link transfer offer, or it has lapsed.' })

const audited = (offer: OfferRow) => ({
  offer_id: offer.id,
  from:
    offer.from_organization_id === null
      ? { user_id: offer.from_user_id }
      : { organization_id: offer.from_organization_id },
  to: { user_id: offer.to_user_id },
})

/** Deletes the lapsed offers of every account, each audited `link.transfer_expire`. */
async function expireOffers(deps: Deps, tx: Executor): Promise<void> {
  for (const offer of await deleteExpiredOffers(tx, deps.clock.now().toISOString())) {
    await recordAudit(
      tx,
      deps.clock,
      { ip: null, userAgent: null },
      {
        action: 'link.transfer_expire',
        actor: null,
        target: { type: 'link', id: offer.link_id },
        metadata: { ...audited(offer), reason: 'expired' },
      },
    )
  }
}

/**
 * Offers the link to the person, inside the transaction of POST /api/links/{id}/transfer (which
 * checked the caller may give it and the person may receive it). Nothing about the recipient's own
 * links is read.
 */
export async function offerLink(
  deps: Deps,
  tx: Executor,
  caller: Caller,
  link: VisibleLink,
  toUserId: string,
  ctx: RequestContext,
): Promise<OfferRow> {
  await expireOffers(deps, tx)
  if ((await countOffersFrom(tx, caller.user.id)) >= MAX_OFFERS_PER_SENDER)
    throw new AppError('LIMIT_REACHED', {
      details: `at most ${MAX_OFFERS_PER_SENDER} standing offers`,
    })
  const now = deps.clock.now()
  const offer: OfferRow = {
    id: newId(),
    link_id: link.id,
    from_user_id: caller.user.id,
    from_organization_id: link.organization_id,
    to_user_id: toUserId,
    link_updated_at: link.updated_at,
    created_at: now.toISOString(),
    expires_at: addSeconds(now, OFFER_TTL_SECONDS).toISOString(),
  }
  const earlier = await replaceOffer(tx, offer)
  if (earlier !== null)
    await recordAudit(tx, deps.clock, ctx, {
      action: 'link.transfer_cancel',
      actor: caller.user,
      target: { type: 'link', id: link.id },
      metadata: { ...audited(earlier), reason: 'replaced' },
    })
  await recordAudit(tx, deps.clock, ctx, {
    action: 'link.transfer_offer',
    actor: caller.user,
    target: { type: 'link', id: link.id },
    metadata: { ...audited(offer), slug: link.slug, expires_at: offer.expires_at },
  })
  return offer
}

/** The offer as its sender sees it, once its transaction committed; mailed when mail works. */
export async function announceOffer(deps: Deps, offerId: string): Promise<TransferOfferView> {
  const offer = await findOffer(deps.db, offerId)
  if (offer === null) throw offerNotFound()
  await mailOffer(deps, offer)
  return toView(offer)
}

/**
 * The recipient's mail: to their own address, under the caps on mail users trigger; a mail not sent
 * (caps, SMTP) leaves the offer standing in the console, and is logged.
 */
async function mailOffer(deps: Deps, offer: OfferRecord): Promise<void> {
  if (!(await isMailConfigured(deps))) return
  const recipient = await findUserById(deps.db, offer.to_user_id)
  if (recipient === null) return
  let reserved: { release(): Promise<void> }
  try {
    reserved = await reserveUserMail(deps, recipient.email)
  } catch {
    deps.logger.info('a link transfer offer was not mailed: the mail caps are reached')
    return
  }
  try {
    await sendMail(deps, {
      to: recipient.email,
      ...offerMail(recipient.language, {
        from: offer.from_name,
        slug: offer.slug,
        url: offer.url,
        page: `${deps.config.publicUrl}/links`,
      }),
    })
  } catch (error) {
    await reserved.release()
    if (error instanceof AppError && error.reason === 'UPSTREAM_FAILED') {
      deps.logger.warn({ smtp: error.message }, 'a link transfer offer could not be mailed')
      return
    }
    throw error
  }
}

/** GET /api/links/transfer-offers: what the caller was offered and what they offered. */
export async function listTransferOffers(deps: Deps, caller: Caller): Promise<TransferOfferLists> {
  await deps.db.transaction().execute((tx) => expireOffers(deps, tx))
  const now = deps.clock.now().toISOString()
  const [incoming, outgoing] = [
    await listOffers(deps.db, caller.user.id, 'to', now, LISTED_OFFERS),
    await listOffers(deps.db, caller.user.id, 'from', now, LISTED_OFFERS),
  ]
  return { incoming: incoming.map(toView), outgoing: outgoing.map(toView) }
}

/**
 * POST /api/links/transfer-offers/{id}/accept: the link becomes the caller's personal link. A slug
 * the caller has already is 409 TRANSFER_SLUG_TAKEN and the offer stands; a link changed since the
 * offer is 404 and the offer is gone.
 */
export async function acceptTransferOffer(
  deps: Deps,
  caller: Caller,
  offerId: string,
  ctx: RequestContext,
): Promise<TransferredLink> {
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString()
    const offer = await takeOffer(tx, offerId, { to_user_id: caller.user.id }, now)
    if (offer === null) return null
    if (!(await linkAsOffered(tx, offer))) {
      await recordAudit(tx, deps.clock, ctx, {
        action: 'link.transfer_expire',
        actor: caller.user,
        target: { type: 'link', id: offer.link_id },
        metadata: { ...audited(offer), reason: 'link_changed' },
      })
      return null
    }
    const owner = { user_id: caller.user.id, organization_id: null }
    try {
      await setLinkOwner(tx, offer.link_id, owner, now)
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('TRANSFER_SLUG_TAKEN', { details: 'slug' })
      throw error
    }
    await dropAfterOwnerChange(tx, [offer.link_id])
    await recordAudit(tx, deps.clock, ctx, {
      action: 'link.transfer',
      actor: caller.user,
      target: { type: 'link', id: offer.link_id },
      metadata: { ...audited(offer), offered_by: offer.from_user_id },
    })
    return { id: offer.link_id, ...owner }
  })
  if (outcome === null) throw offerNotFound()
  return outcome
}

/** The recipient declines (`decline`) or the sender withdraws (`cancel`) a standing offer. */
export async function endTransferOffer(
  deps: Deps,
  caller: Caller,
  offerId: string,
  how: 'decline' | 'cancel',
  ctx: RequestContext,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const party =
      how === 'decline' ? { to_user_id: caller.user.id } : { from_user_id: caller.user.id }
    const offer = await takeOffer(tx, offerId, party, deps.clock.now().toISOString())
    if (offer === null) throw offerNotFound()
    await recordAudit(tx, deps.clock, ctx, {
      action: how === 'decline' ? 'link.transfer_decline' : 'link.transfer_cancel',
      actor: caller.user,
      target: { type: 'link', id: offer.link_id },
      metadata: audited(offer),
    })
  })
}
