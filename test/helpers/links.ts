/** Tags and links, made through the API like a client would. */
import type { TestContext } from './app.js'
import { bearer } from './factories.js'

export interface LinkJson {
  id: string
  url: string
  title: string | null
  slug: string | null
  forwarding_enabled: boolean
  tag_ids: string[]
  organization_id: string | null
  clicks_30d: number
  can_change: boolean
  team_ids: string[]
  shared_via: { organization: string | null; teams: string[] } | null
  pinned: boolean
  created_at: string
  updated_at: string
}

export async function createTag(
  t: TestContext,
  token: string,
  name: string,
  color?: string,
): Promise<{ id: string; name: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/tags',
    headers: bearer(token),
    payload: { name, ...(color !== undefined && { color }) },
  })
  if (response.statusCode !== 201)
    throw new Error(`tag creation failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

export async function createLink(
  t: TestContext,
  token: string,
  fields: Record<string, unknown>,
): Promise<LinkJson> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(token),
    payload: { url: 'https://example.com/', ...fields },
  })
  if (response.statusCode !== 201)
    throw new Error(`link creation failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

/** A link of the Links list, as far as the tests that page through it read it. */
export interface ListedLink {
  id: string
  title: string
  url: string
  slug: string | null
}

/** Every page of `GET /api/links?<query>` (50 links a page unless told), followed by its cursor. */
export async function listAllLinks(
  t: TestContext,
  token: string,
  query: string,
  pageSize = 50,
): Promise<ListedLink[]> {
  const items: ListedLink[] = []
  let cursor: string | null = null
  do {
    const after: string = cursor === null ? '' : `&cursor=${cursor}`
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/links?${query}&limit=${pageSize}${after}`,
      headers: bearer(token),
    })
    if (response.statusCode !== 200)
      throw new Error(`listing failed: ${response.statusCode} ${response.body}`)
    const page = response.json<{ items: ListedLink[]; next_cursor: string | null }>()
    items.push(...page.items)
    cursor = page.next_cursor
  } while (cursor !== null)
  return items
}

/** What an import answers, as far as the tests read it. */
export interface ImportJson {
  imported: number
  skipped: Array<{ reason: string }>
}

/** POST /api/links/import of a Switchboard JSON file holding `links`, with the given options. */
export async function importJsonLinks(
  t: TestContext,
  token: string,
  links: ReadonlyArray<Record<string, unknown>>,
  options: { dry_run?: boolean; organization_id?: string } = {},
): Promise<ImportJson> {
  const content = JSON.stringify({ format: 'switchboard-links', version: 1, links })
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/links/import',
    headers: bearer(token),
    payload: { format: 'json', content, ...options },
  })
  if (response.statusCode !== 200)
    throw new Error(`import failed: ${response.statusCode} ${response.body}`)
  return response.json()
}

/** Whose tags are on the link: their owners' ids, sorted. */
export async function tagOwnersOn(t: TestContext, linkId: string): Promise<string[]> {
  const rows = await t.deps.db
    .selectFrom('link_tags')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .select('tags.user_id')
    .where('link_tags.link_id', '=', linkId)
    .execute()
  return rows.map((row) => row.user_id).sort()
}

let tagsMade = 0

/** Each person puts a new tag of theirs on the links (a bulk add_tag, which must answer 200). */
export async function tagAll(
  t: TestContext,
  people: Array<{ token: string }>,
  linkIds: string[],
): Promise<void> {
  for (const person of people) {
    const tag = await createTag(t, person.token, `tag-all-${(tagsMade += 1)}`)
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/links/bulk',
      headers: bearer(person.token),
      payload: { action: 'add_tag', tag_id: tag.id, link_ids: linkIds },
    })
    if (added.statusCode !== 200)
      throw new Error(`add_tag failed: ${added.statusCode} ${added.body}`)
  }
}

/** The ids of a collection's links, in the collection's order, as stored. */
export async function collectionLinkIds(t: TestContext, collectionId: string): Promise<string[]> {
  const rows = await t.deps.db
    .selectFrom('collection_links')
    .select('link_id')
    .where('collection_id', '=', collectionId)
    .orderBy('position')
    .execute()
  return rows.map((row) => row.link_id)
}

/** A link's `link.transfer` audit events, oldest first: [actor, from, to] each. */
export async function linkTransfers(
  t: TestContext,
  linkId: string,
): Promise<Array<[string | null, unknown, unknown]>> {
  const events = await t.deps.db
    .selectFrom('audit_events')
    .select(['actor_id', 'metadata'])
    .where('action', '=', 'link.transfer')
    .where('target_id', '=', linkId)
    .orderBy('at')
    .execute()
  return events.map((event) => {
    const metadata = (
      typeof event.metadata === 'string' ? JSON.parse(event.metadata) : event.metadata
    ) as Record<string, unknown>
    return [event.actor_id, metadata.from, metadata.to]
  })
}
