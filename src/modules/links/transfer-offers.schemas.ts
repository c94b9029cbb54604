import { Type, type Static } from '@sinclair/typebox'
import { Nullable, Timestamp } from '../../lib/schema-types.js'

const Person = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
})

/** A link offered to a person, as its sender and its recipient see it. */
export const TransferOfferView = Type.Object(
  {
    id: Type.String(),
    link: Type.Object({
      id: Type.String(),
      slug: Nullable(Type.String()),
      url: Type.String(),
      title: Nullable(Type.String()),
    }),
    from: Person,
    to: Person,
    organization_id: Nullable(
      Type.String({ description: "The link's organization when offered; null: the sender's own" }),
    ),
    created_at: Timestamp(),
    expires_at: Type.String({
      format: 'date-time',
      description: '7 days after created_at: then the offer lapses and the link stays',
    }),
  },
  { title: 'LinkTransferOffer', additionalProperties: false },
)
export type TransferOfferView = Static<typeof TransferOfferView>

export const TransferOfferLists = Type.Object(
  {
    incoming: Type.Array(TransferOfferView, { description: 'Offered to you, newest first' }),
    outgoing: Type.Array(TransferOfferView, { description: 'Offered by you, newest first' }),
  },
  { title: 'LinkTransferOffers', additionalProperties: false },
)
export type TransferOfferLists = Static<typeof TransferOfferLists>
