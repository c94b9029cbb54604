/**
 * POST /api/links/suggestions/tags (the Links page's "Suggest tags") against the OpenAI-compatible
 * stand-in and a local page server: one model call per link at most, the cache shared with the
 * link dialog, the hourly budget, local answers without a model, the permission, the 100-link
 * limit and the 404 rule of bulk actions. Suggesting stores and audits nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import { expectReason } from '../../../test/helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { createLink, createTag, type LinkJson } from '../../../test/helpers/links.js'
import { createOrganization } from '../../../test/helpers/organizations.js'
import type { ChatRequestSeen, OpenAiStandIn } from '../../../test/helpers/openai-stand-in.js'
import { scanResponsesForSecrets } from '../../../test/helpers/secret-scan.js'
import {
  enableSuggestions,
  putAiSettings,
  startSuggestionStandIns,
  type SuggestionStandIns,
} from '../../../test/helpers/suggestion-stand-ins.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
scanResponsesForSecrets(t)

type Person = TestUser & SignedIn
let standIns: SuggestionStandIns
let provider: OpenAiStandIn
let base: string
let admin: Person
let alice: Person

beforeAll(async () => {
  // Each page is titled after its path: /page/7 → "Page 7 about kubernetes".
  standIns = await startSuggestionStandIns(
    (path) => `<head><title>${path.slice(1).replace('/', ' ')} about kubernetes</title></head>`,
  )
  ;({ provider, base } = standIns)
  ;[admin, alice] = await Promise.all([
    createSignedInUser(t, { isAdmin: true }),
    createSignedInUser(t),
  ])
  await createTag(t, alice.token, 'Kubernetes')
  await enableSuggestions(t, admin.token, provider)
  // The model answers each link with the tags its page title names: "page 3" → Topic3.
  provider.chat = (request: ChatRequestSeen) => {
    const facts = JSON.parse(request.body.messages!.at(-1)!.content) as { page_title: string }
    const topic = /(\d+)/.exec(facts.page_title)?.[1] ?? 'none'
    return {
      status: 200,
      content: JSON.stringify({ title: 'x', slug: 'x', tags: ['KUBERNETES', `Topic${topic}`] }),
    }
  }
})

afterAll(async () => {
  await standIns?.close()
})

const putAi = (payload: Record<string, unknown>) => putAiSettings(t, admin.token, payload)

function suggestTags(who: { token: string }, linkIds: string[]) {
  return t.app.inject({
    method: 'POST',
    url: '/api/links/suggestions/tags',
    headers: bearer(who.token),
    payload: { link_ids: linkIds },
  })
}

let unique = 0
/** `count` new links of the person, each on a page no earlier test used (the cache is per URL). */
async function newLinks(who: Person, count: number): Promise<LinkJson[]> {
  const links: LinkJson[] = []
  for (let i = 0; i < count; i++)
    links.push(await createLink(t, who.token, { url: `${base}/page/${++unique}` }))
  return links
}

const topicOf = (link: LinkJson) => `Topic${new URL(link.url).pathname.split('/').at(-1)}`

describe('POST /api/links/suggestions/tags', () => {
  it('answers each link in the order asked, with one model call per link, and stores nothing', async () => {
    const links = await newLinks(alice, 3)
    const ids = links.map((link) => link.id).reverse()
    const before = provider.chatRequests.length
    const audited = await t.deps.db.selectFrom('audit_events').select('id').execute()
    const response = await suggestTags(alice, ids)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      items: [...links].reverse().map((link) => ({
        link_id: link.id,
        source: 'ai',
        tags: ['Kubernetes', topicOf(link)],
        new_tags: [topicOf(link)],
      })),
    })
    expect(provider.chatRequests.length - before).toBe(3)
    // Each call carried its own link's page, as the dialog's call would.
    const titles = provider.chatRequests
      .slice(before)
      .map((seen) => JSON.parse(seen.body.messages!.at(-1)!.content) as { page_title: string })
      .map((facts) => facts.page_title)
      .sort()
    expect(titles).toEqual(
      links.map((link) => `page ${new URL(link.url).pathname.split('/').at(-1)} about kubernetes`),
    )
    // Nothing applied, no tag created, nothing audited.
    for (const link of links) {
      const now = await t.app.inject({
        method: 'GET',
        url: `/api/links/${link.id}`,
        headers: bearer(alice.token),
      })
      expect(now.json().tag_ids).toEqual([])
    }
    const tags = await t.app.inject({
      method: 'GET',
      url: '/api/tags',
      headers: bearer(alice.token),
    })
    expect(JSON.stringify(tags.json())).not.toContain('Topic')
    expect(await t.deps.db.selectFrom('audit_events').select('id').execute()).toHaveLength(
      audited.length,
    )
  })

  it('shares the cache with the link dialog: a URL asked about before makes no model call', async () => {
    const [link] = await newLinks(alice, 1)
    const dialog = await t.app.inject({
      method: 'POST',
      url: '/api/links/suggestions',
      headers: bearer(alice.token),
      payload: { url: link!.url },
    })
    expect(dialog.json().source).toBe('ai')
    const before = provider.chatRequests.length
    const first = await suggestTags(alice, [link!.id])
    const again = await suggestTags(alice, [link!.id])
    expect(provider.chatRequests.length).toBe(before)
    expect(first.json().items[0]).toMatchObject({ source: 'ai', tags: dialog.json().tags })
    expect(again.json()).toEqual(first.json())
  })

  it('keeps to the hourly budget: beyond it, local suggestions with the reason', async () => {
    const erin = await createSignedInUser(t)
    await createTag(t, erin.token, 'kubernetes')
    const links = await newLinks(erin, 5)
    expect((await putAi({ suggestions_hourly_limit: 3 })).statusCode).toBe(200)
    try {
      const before = provider.chatRequests.length
      const response = await suggestTags(
        erin,
        links.map((link) => link.id),
      )
      expect(response.statusCode).toBe(200)
      expect(provider.chatRequests.length - before).toBe(3)
      const items = response.json().items as Array<Record<string, unknown>>
      expect(items.filter((item) => item.source === 'ai')).toHaveLength(3)
      // Local: the person's tag named in the page title, nothing new.
      expect(items.filter((item) => item.source === 'local')).toEqual(
        Array.from({ length: 2 }, () =>
          expect.objectContaining({
            tags: ['kubernetes'],
            new_tags: [],
            fallback_reason: 'budget',
          }),
        ),
      )
    } finally {
      await putAi({ suggestions_hourly_limit: 60 })
    }
  })

  it('the instance’s AI off: local suggestions for every link, no model call', async () => {
    const links = await newLinks(alice, 2)
    expect((await putAi({ enabled: false })).statusCode).toBe(200)
    try {
      const before = provider.chatRequests.length
      const response = await suggestTags(
        alice,
        links.map((link) => link.id),
      )
      expect(provider.chatRequests.length).toBe(before)
      expect(response.json().items).toEqual(
        links.map((link) => ({
          link_id: link.id,
          source: 'local',
          tags: ['Kubernetes'],
          new_tags: [],
          fallback_reason: 'disabled',
        })),
      )
    } finally {
      await putAi({ enabled: true })
    }
  })

  it('a links:read token is 403 INSUFFICIENT_SCOPE', async () => {
    const [link] = await newLinks(alice, 1)
    const { token } = await createApiTokenFor(t, alice.token, 'read only', {
      permissions: ['links:read'],
    })
    const before = provider.chatRequests.length
    expectReason(await suggestTags({ token }, [link!.id]), 403, 'INSUFFICIENT_SCOPE')
    expect(provider.chatRequests.length).toBe(before)
  })

  it('takes 1 to 100 distinct links: 101, none or a repeated one is 400', async () => {
    const [link] = await newLinks(alice, 1)
    const many = Array.from({ length: 101 }, (_, i) => `${link!.id}-${i}`)
    const before = provider.chatRequests.length
    expectReason(await suggestTags(alice, many), 400, 'VALIDATION_FAILED')
    expectReason(await suggestTags(alice, []), 400, 'VALIDATION_FAILED')
    expectReason(await suggestTags(alice, [link!.id, link!.id]), 400, 'VALIDATION_FAILED')
    expect(provider.chatRequests.length).toBe(before)
  })

  it('one link the caller cannot see is 404 for all, and no model is asked', async () => {
    const bob = await createSignedInUser(t)
    const [own] = await newLinks(alice, 1)
    const [bobs] = await newLinks(bob, 1)
    const before = provider.chatRequests.length
    expectReason(await suggestTags(alice, [own!.id, bobs!.id]), 404, 'NOT_FOUND')
    expectReason(await suggestTags(alice, [own!.id, 'no-such-link']), 404, 'NOT_FOUND')
    expect(provider.chatRequests.length).toBe(before)
  })

  it('a token whose organization boundary leaves a link’s organization out: 404, as for bulk actions', async () => {
    const org = await createOrganization(t, alice.token)
    const shared = await createLink(t, alice.token, {
      url: `${base}/page/${++unique}`,
      organization_id: org.id,
    })
    const personal = await createApiTokenFor(t, alice.token, 'personal only', {
      organization_boundary: 'personal',
    })
    const everywhere = await createApiTokenFor(t, alice.token, 'everywhere', {
      organization_boundary: 'all',
    })
    const before = provider.chatRequests.length
    expectReason(await suggestTags(personal, [shared.id]), 404, 'NOT_FOUND')
    expect(provider.chatRequests.length).toBe(before)
    const inside = await suggestTags(everywhere, [shared.id])
    expect(inside.statusCode).toBe(200)
    expect(inside.json().items).toEqual([
      expect.objectContaining({ link_id: shared.id, source: 'ai' }),
    ])
  })
})
