/** Recently deleted links and transfer targets over the generated client. */
import { queryOptions } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import type { paths } from '../api/schema'

export type DeletedLink =
  paths['/api/links/deleted']['get']['responses'][200]['content']['application/json']['items'][number]

const LIMIT = 200

export const deletedLinksQuery = queryOptions({
  queryKey: ['deleted-links'],
  queryFn: () => unwrap(client.GET('/api/links/deleted', { params: { query: { limit: LIMIT } } })),
})

/** The fellow members of the person's organizations (a link goes only to one of them), by name. */
export function fellowMembersQuery(organizationIds: readonly string[], selfId: string | undefined) {
  return queryOptions({
    queryKey: ['fellow-members', organizationIds],
    queryFn: async () => {
      const pages = await Promise.all(
        organizationIds.map((id) =>
          unwrap(
            client.GET('/api/organizations/{id}/members', {
              params: { path: { id }, query: { limit: LIMIT } },
            }),
          ),
        ),
      )
      const byId = new Map<string, { id: string; name: string; email: string }>()
      for (const page of pages)
        for (const member of page.items)
          if (member.user_id !== selfId)
            byId.set(member.user_id, { id: member.user_id, name: member.name, email: member.email })
      return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name))
    },
  })
}

export type TransferOffer =
  paths['/api/links/transfer-offers']['get']['responses'][200]['content']['application/json']['incoming'][number]

/** Links offered to the person (incoming) and by them (outgoing). */
export const transferOffersQuery = queryOptions({
  queryKey: ['link-transfer-offers'],
  queryFn: () => unwrap(client.GET('/api/links/transfer-offers')),
})
