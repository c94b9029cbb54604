/**
 * Links offered to the person (a transfer to a person is an offer): shown above their links only
 * while one stands, each with Accept and Decline. A refusal (a slug of theirs already) is said in
 * the person's language and the offer stays listed.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { LinkCell } from './LinkListSection'
import { transferOffersQuery, type TransferOffer } from './ownership-queries'

export function TransferOffers({ onFailed }: { onFailed: (error: unknown) => void }) {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const offers = useQuery(transferOffersQuery)
  const answer = useMutation({
    mutationFn: async ({ offer, accept }: { offer: TransferOffer; accept: boolean }) => {
      const params = { params: { path: { id: offer.id } } }
      if (accept) await unwrap(client.POST('/api/links/transfer-offers/{id}/accept', params))
      else await unwrap(client.POST('/api/links/transfer-offers/{id}/decline', params))
    },
    onSuccess: async (_, { offer, accept }) => {
      const name = offer.link.title ?? offer.link.url
      announce(t(accept ? 'golinks.offerAccepted' : 'golinks.offerDeclined', { name }))
      await queryClient.invalidateQueries({ queryKey: ['link-transfer-offers'] })
      if (accept) await queryClient.invalidateQueries({ queryKey: ['links'] })
    },
    onError: onFailed,
  })
  const incoming = offers.data?.incoming ?? []
  if (incoming.length === 0) return null
  return (
    <section className="section" aria-labelledby="offers-heading" data-testid="transfer-offers">
      <h2 id="offers-heading">{t('golinks.offersHeading')}</h2>
      <table className="table">
        <tbody>
          {incoming.map((offer) => (
            <tr key={offer.id}>
              <LinkCell title={offer.link.title} url={offer.link.url} />
              <td>
                {t('golinks.offerFrom', {
                  person: offer.from.name,
                  slug: offer.link.slug ?? '—',
                })}
              </td>
              <td className="row-actions">
                <button
                  type="button"
                  className="button button-primary button-small"
                  disabled={answer.isPending}
                  onClick={() => answer.mutate({ offer, accept: true })}
                >
                  {t('golinks.offerAccept')}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  disabled={answer.isPending}
                  onClick={() => answer.mutate({ offer, accept: false })}
                >
                  {t('golinks.offerDecline')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
