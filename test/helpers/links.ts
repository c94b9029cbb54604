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
