/**
 * Collections, the teams one may share with, and pins over the generated client. A collection's
 * links are read through `GET /api/links?collection_id=` (in the collection's order) and set, in
 * order, with `PUT /api/collections/{id}/links`.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import type { Link } from './queries'

export type Collection =
  paths['/api/collections']['get']['responses'][200]['content']['application/json']['items'][number]
export type ShareableTeam =
  paths['/api/links/shareable-teams']['get']['responses'][200]['content']['application/json']['items'][number]

/** The API's largest page of links. */
const LINKS_PAGE = 200

export const collectionsQuery = queryOptions({
  queryKey: ['collections'],
  queryFn: () => unwrap(client.GET('/api/collections')),
})

export const shareableTeamsQuery = queryOptions({
  queryKey: ['shareable-teams'],
  queryFn: () => unwrap(client.GET('/api/links/shareable-teams')),
  staleTime: 60_000,
})

/** Every link of a collection the caller sees, in the collection's order (all pages). */
export async function collectionLinks(collectionId: string): Promise<Link[]> {
  const links: Link[] = []
  let cursor: string | undefined
  do {
    const page = await unwrap(
      client.GET('/api/links', {
        params: {
          query: { collection_id: collectionId, limit: LINKS_PAGE, ...(cursor && { cursor }) },
        },
      }),
    )
    links.push(...page.items)
    cursor = page.next_cursor ?? undefined
  } while (cursor !== undefined)
  return links
}

export function setCollectionLinks(collectionId: string, linkIds: string[]) {
  return unwrap(
    client.PUT('/api/collections/{id}/links', {
      params: { path: { id: collectionId } },
      body: { link_ids: linkIds },
    }),
  )
}

/** Pins or unpins a link for the caller. */
export function setPinned(linkId: string, pinned: boolean) {
  const options = { params: { path: { id: linkId } } }
  return unwrap(
    pinned
      ? client.PUT('/api/links/{id}/pin', options)
      : client.DELETE('/api/links/{id}/pin', options),
  )
}

/** After a change of collections or of their links: the lists that show them. */
export async function refreshCollections(queryClient: QueryClient): Promise<void> {
  await queryClient.invalidateQueries({ queryKey: ['collections'] })
  await queryClient.invalidateQueries({ queryKey: ['links'] })
  await queryClient.invalidateQueries({ queryKey: ['collection-links'] })
}
