/**
 * The Links area's data: links, tags, organizations and go-link preferences over the generated
 * client.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { client, unwrap } from '../api/client'
import type { paths } from '../api/schema'

type ItemOf<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { items: (infer T)[] } } } } }
}
  ? T
  : never
export type Link = ItemOf<'/api/links'>
export type Tag = ItemOf<'/api/tags'>
export type Organization = ItemOf<'/api/organizations'>
export type Preference = ItemOf<'/api/go/preferences'>

/** The list's filters as they sit in the query string (shareable; Back returns to them). */
export interface LinksSearch {
  q?: string
  tag?: string
  /** `mine`, `organizations`, `shared` (shared with one of my teams), or an organization's id. */
  owner?: string
  /** One collection's links, in its order. */
  collection?: string
  cursor?: string
  /** With `cursor`: the place of the page's first link in the list, from 1 ("26–50 of 228"). */
  from?: number
  /** Opens the create dialog (the command palette's "Create link"). */
  new?: boolean
  /** With `new`: the slug to fill in (the /go miss page's "Create go/<slug>"). */
  slug?: string
  /** Opens the edit dialog of the link with this id (the /go/<slug>+ page's "Edit"). */
  edit?: string
  /** `clicks`: most clicked in the last 30 days first; newest first otherwise. */
  sort?: 'clicks'
}

export const PAGE_SIZE = 25
/** Tags and organizations are small per person; the first page of each is what the pickers show. */
const PICKER_LIMIT = 200

/** The list's filters as the API's query (the count takes them without the page). */
function filterQuery(search: LinksSearch) {
  const owner = search.owner
  return {
    ...(search.collection !== undefined && { collection_id: search.collection }),
    ...(owner === 'shared' && { scope: 'shared' as const }),
    ...(search.q !== undefined && { q: search.q }),
    ...(search.tag !== undefined && { tag_id: search.tag }),
    ...(owner === 'mine' && { owner: 'personal' as const }),
    ...(owner === 'organizations' && { owner: 'organization' as const }),
    ...(owner !== undefined &&
      owner !== 'mine' &&
      owner !== 'organizations' &&
      owner !== 'shared' && { organization_id: owner }),
  }
}

/**
 * One page of the list. `pinned` splits it: the first page shows the pinned links (`true`) above
 * the others (`false`); a collection's list keeps the collection's order instead.
 */
export function linksQuery(search: LinksSearch, pinned?: boolean) {
  const query = {
    limit: PAGE_SIZE,
    ...(pinned !== undefined && { pinned }),
    ...filterQuery(search),
    ...(search.cursor !== undefined && { cursor: search.cursor }),
    ...(search.sort === 'clicks' && { sort: 'clicks_30d' as const }),
  }
  return queryOptions({
    queryKey: ['links', query],
    queryFn: () => unwrap(client.GET('/api/links', { params: { query } })),
    placeholderData: (previous) => previous,
  })
}

/** How many links the list holds with these filters: the same filters, without the page. */
export function linksCountQuery(search: LinksSearch) {
  const query = filterQuery(search)
  return queryOptions({
    queryKey: ['links', 'count', query],
    queryFn: () => unwrap(client.GET('/api/links/count', { params: { query } })),
    placeholderData: (previous) => previous,
  })
}

/** The first PICKER_LIMIT tags by name: what a picker shows before anything is typed. */
export const tagsQuery = queryOptions({
  queryKey: ['tags'],
  queryFn: () => unwrap(client.GET('/api/tags', { params: { query: { limit: PICKER_LIMIT } } })),
})

/** The most ids one `GET /api/tags?ids=` names (the API's limit). */
const TAG_IDS_PER_REQUEST = 100

/** The cache entry of one tag's name (null: not the person's tag), filled by tagNamesQuery. */
export const tagNameKey = (id: string) => ['tags', 'name', id] as const

/**
 * The names of these tag ids, asked by id (one request up to TAG_IDS_PER_REQUEST): the tags on a
 * page of links beyond the first PICKER_LIMIT. Each answer is kept under its tagNameKey, so a page
 * seen before names its tags at once; an id that is not the person's tag is kept as null.
 */
export function tagNamesQuery(queryClient: QueryClient, ids: readonly string[]) {
  return queryOptions({
    queryKey: ['tags', 'names', ids],
    queryFn: async () => {
      const found: Tag[] = []
      for (let start = 0; start < ids.length; start += TAG_IDS_PER_REQUEST) {
        const chunk = ids.slice(start, start + TAG_IDS_PER_REQUEST).join(',')
        const page = await unwrap(client.GET('/api/tags', { params: { query: { ids: chunk } } }))
        found.push(...page.items)
      }
      const names = new Map(found.map((tag) => [tag.id, tag.name]))
      for (const id of ids) queryClient.setQueryData(tagNameKey(id), names.get(id) ?? null)
      return found
    },
  })
}

/** How many tags a search as one types shows: typing on narrows them. */
const TAG_SEARCH_LIMIT = 50

/**
 * The tags whose name contains `text`, any case, searched by the API: a tag past the first page is
 * found too. An empty text is the first page (tagsQuery's).
 */
export function tagSearchQuery(text: string) {
  const q = text.trim()
  return queryOptions({
    queryKey: ['tags', 'search', q],
    queryFn: () =>
      unwrap(
        client.GET('/api/tags', {
          params: { query: q === '' ? { limit: PICKER_LIMIT } : { q, limit: TAG_SEARCH_LIMIT } },
        }),
      ),
    placeholderData: (previous) => previous,
  })
}

/**
 * The person's organizations for pickers; its own key: the organizations area pages the same list
 * as an infinite query.
 */
export const organizationsQuery = queryOptions({
  queryKey: ['organizations', 'picker'],
  queryFn: () =>
    unwrap(client.GET('/api/organizations', { params: { query: { limit: PICKER_LIMIT } } })),
})

export const preferencesQuery = queryOptions({
  queryKey: ['go-preferences'],
  queryFn: () =>
    unwrap(client.GET('/api/go/preferences', { params: { query: { limit: PICKER_LIMIT } } })),
})

export function goLinkOf(slug: string): string {
  return `${window.location.origin}/go/${slug}`
}
