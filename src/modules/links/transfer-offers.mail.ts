/**
 * The mail to the person a link is offered to, in English and German (the account's language when
 * it starts with `de`, else English). It carries no secret: the offer is answered in the console.
 */
export interface OfferMail {
  subject: string
  text: string
}

export function offerMail(
  language: string,
  offer: { from: string; slug: string | null; url: string; page: string },
): OfferMail {
  const name = offer.slug === null ? offer.url : `go/${offer.slug} (${offer.url})`
  if (language.toLowerCase().startsWith('de')) {
    return {
      subject: 'Switchboard: Ihnen wird ein Link übergeben',
      text:
        `${offer.from} möchte Ihnen den Link ${name} übergeben.\n\n` +
        'Er wird erst Ihrer, wenn Sie annehmen; das Angebot gilt 7 Tage. Annehmen oder ablehnen ' +
        `können Sie unter „Links“:\n${offer.page}\n`,
    }
  }
  return {
    subject: 'Switchboard: a link is offered to you',
    text:
      `${offer.from} would like to give you the link ${name}.\n\n` +
      'It becomes yours only if you accept; the offer stands for 7 days. Accept or decline it ' +
      `on the Links page:\n${offer.page}\n`,
  }
}
