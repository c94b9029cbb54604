/** SQL for offers of a link to a person: one pending offer per link, taken by one DELETE. */
import type { Executor, LinkTransferOffersTable, Timestamp } from '../../db/schema.js'

export type OfferRow = LinkTransferOffersTable

/** An offer with what its two people see of it: the link, the sender and the recipient. */
export interface OfferRecord extends OfferRow {
  slug: string | null
  url: string
  title: string | null
  from_name: string
  from_email: string
  to_name: string
  to_email: string
}

/**
 * Stores the offer in place of the link's earlier one, if any (which is returned: it stops
 * standing).
 */
export async function replaceOffer(ex: Executor, offer: OfferRow): Promise<OfferRow | null> {
  const earlier = await ex
    .deleteFrom('link_transfer_offers')
    .where('link_id', '=', offer.link_id)
    .returningAll()
    .executeTakeFirst()
  await ex.insertInto('link_transfer_offers').values(offer).execute()
  return earlier ?? null
}

function offersWithPeople(ex: Executor) {
  return ex
    .selectFrom('link_transfer_offers as o')
    .innerJoin('links', 'links.id', 'o.link_id')
    .innerJoin('users as sender', 'sender.id', 'o.from_user_id')
    .innerJoin('users as recipient', 'recipient.id', 'o.to_user_id')
    .selectAll('o')
    .select([
      'links.slug',
      'links.url',
      'links.title',
      'sender.name as from_name',
      'sender.email as from_email',
      'recipient.name as to_name',
      'recipient.email as to_email',
    ])
}

/** The standing offers to or from the person, newest first (at most `limit` each way). */
export async function listOffers(
  ex: Executor,
  userId: string,
  direction: 'to' | 'from',
  now: Timestamp,
  limit: number,
): Promise<OfferRecord[]> {
  return offersWithPeople(ex)
    .where(direction === 'to' ? 'o.to_user_id' : 'o.from_user_id', '=', userId)
    .where('o.expires_at', '>', now)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute()
}

export async function findOffer(ex: Executor, id: string): Promise<OfferRecord | null> {
  return (await offersWithPeople(ex).where('o.id', '=', id).executeTakeFirst()) ?? null
}

/**
 * Takes the standing offer away for its recipient or its sender, in one conditional DELETE: of two
 * concurrent answers to one offer exactly one gets the row (the other, null).
 */
export async function takeOffer(
  ex: Executor,
  id: string,
  party: { to_user_id: string } | { from_user_id: string },
  now: Timestamp,
): Promise<OfferRow | null> {
  let query = ex
    .deleteFrom('link_transfer_offers')
    .where('id', '=', id)
    .where('expires_at', '>', now)
  query =
    'to_user_id' in party
      ? query.where('to_user_id', '=', party.to_user_id)
      : query.where('from_user_id', '=', party.from_user_id)
  return (await query.returningAll().executeTakeFirst()) ?? null
}

/** Deletes the expired offers (every account's) and returns them, for their audit events. */
export async function deleteExpiredOffers(ex: Executor, now: Timestamp): Promise<OfferRow[]> {
  return ex
    .deleteFrom('link_transfer_offers')
    .where('expires_at', '<=', now)
    .returningAll()
    .execute()
}

export async function countOffersFrom(ex: Executor, userId: string): Promise<number> {
  const row = await ex
    .selectFrom('link_transfer_offers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('from_user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Whether the link is still as it was offered — same owner, not edited since — else the offer
 * lapsed.
 */
export async function linkAsOffered(ex: Executor, offer: OfferRow): Promise<boolean> {
  let query = ex
    .selectFrom('links')
    .select('id')
    .where('id', '=', offer.link_id)
    .where('updated_at', '=', offer.link_updated_at)
  query =
    offer.from_organization_id === null
      ? query.where('user_id', '=', offer.from_user_id).where('organization_id', 'is', null)
      : query.where('organization_id', '=', offer.from_organization_id)
  return (await query.executeTakeFirst()) !== undefined
}
