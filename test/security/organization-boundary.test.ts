/**
 * An API token's organization boundary applies to every organization a request names — in the
 * path (identity/permissions.ts ORGANIZATION_IN_PATH), in the body, and through a link it picks —
 * with the 404 a non-member gets. The table below holds every operation of the OpenAPI document
 * whose request body has an `organization_id`: an operation added later fails the first test until
 * its row is written.
 */
import type { InjectOptions } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import {
  bearer,
  createApiTokenFor,
  createSignedInUser,
  type SignedIn,
} from '../helpers/factories.js'
import { createLink } from '../helpers/links.js'
import { createOrganization } from '../helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

type Json = Record<string, unknown>

interface Row {
  method: InjectOptions['method']
  url: (ctx: Ctx) => string
  body: (ctx: Ctx) => Json
}

interface Ctx {
  org: string
  personalLink: string
}

/** Every operation whose body names an organization, as a request naming the owner's own one. */
const BODY_NAMES_ORGANIZATION: Record<string, Row> = {
  createLink: {
    method: 'POST',
    url: () => '/api/links',
    body: (c) => ({ url: 'https://example.com/boundary', organization_id: c.org }),
  },
  updateLink: {
    method: 'PATCH',
    url: (c) => `/api/links/${c.personalLink}`,
    body: (c) => ({ organization_id: c.org }),
  },
  bulkLinks: {
    method: 'POST',
    url: () => '/api/links/bulk',
    body: (c) => ({ action: 'share', link_ids: [c.personalLink], organization_id: c.org }),
  },
  transferLink: {
    method: 'POST',
    url: (c) => `/api/links/${c.personalLink}/transfer`,
    body: (c) => ({ organization_id: c.org }),
  },
  importLinks: {
    method: 'POST',
    url: () => '/api/links/import',
    body: (c) => ({
      format: 'json',
      content: JSON.stringify([{ url: 'https://example.com/imported' }]),
      organization_id: c.org,
    }),
  },
  createCollection: {
    method: 'POST',
    url: () => '/api/collections',
    body: (c) => ({ name: 'Boundary', organization_id: c.org }),
  },
  suggestLinkDetails: {
    method: 'POST',
    url: () => '/api/links/suggestions',
    body: (c) => ({ url: 'https://example.com/suggest', organization_id: c.org }),
  },
  createCheckoutSession: {
    method: 'POST',
    url: () => '/api/billing/checkout-session',
    body: (c) => ({ organization_id: c.org, plan: 'pro', interval: 'month' }),
  },
}

function namesOrganization(schema: unknown, document: Json): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  const node = schema as Json
  if (typeof node.$ref === 'string') {
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], document)
    return namesOrganization(target, document)
  }
  const properties = node.properties as Json | undefined
  if (properties !== undefined && 'organization_id' in properties) return true
  return [node.anyOf, node.oneOf, node.allOf].some(
    (branches) =>
      Array.isArray(branches) && branches.some((branch) => namesOrganization(branch, document)),
  )
}

let owner: SignedIn
let ctx: Ctx
let personal: string
let all: string

beforeAll(async () => {
  owner = await createSignedInUser(t)
  const org = await createOrganization(t, owner.token)
  personal = (
    await createApiTokenFor(t, owner.token, 'personal', { organization_boundary: 'personal' })
  ).token
  all = (await createApiTokenFor(t, owner.token, 'all', { organization_boundary: 'all' })).token
  ctx = { org: org.id, personalLink: '' }
})

async function send(operationId: string, token: string) {
  const row = BODY_NAMES_ORGANIZATION[operationId]!
  // A fresh personal link each time: a request that succeeds moves it into the organization.
  const link = await createLink(t, owner.token, { url: 'https://example.com/mine' })
  const c = { ...ctx, personalLink: link.id }
  return t.app.inject({
    method: row.method,
    url: row.url(c),
    headers: bearer(token),
    payload: row.body(c),
  })
}

describe('organization ids in request bodies', () => {
  it('the table holds every operation whose body has organization_id', () => {
    const document = t.app.swagger() as unknown as Json
    const found: string[] = []
    for (const item of Object.values(document.paths as Record<string, Json>)) {
      for (const operation of Object.values(item) as Json[]) {
        const content = (operation.requestBody as Json | undefined)?.content as Json | undefined
        const schemas = Object.values(content ?? {}).map((media) => (media as Json).schema)
        if (schemas.some((schema) => namesOrganization(schema, document)))
          found.push(operation.operationId as string)
      }
    }
    expect(found.sort()).toEqual(Object.keys(BODY_NAMES_ORGANIZATION).sort())
  })

  it.each(Object.keys(BODY_NAMES_ORGANIZATION))(
    '%s: 404 for a token whose boundary leaves the organization out, not 404 inside it',
    async (operationId) => {
      expectReason(await send(operationId, personal), 404, 'NOT_FOUND')
      const inside = await send(operationId, all)
      expect(inside.statusCode, inside.body).not.toBe(404)
    },
  )
})

describe('go-link preferences', () => {
  it('a preference for an organization link outside the boundary is neither listed, set nor deleted', async () => {
    const org = await createOrganization(t, owner.token)
    const slug = `pref-${Math.random().toString(36).slice(2, 8)}`
    const shared = await createLink(t, owner.token, { slug, organization_id: org.id })
    await createLink(t, owner.token, { slug })
    const call = (token: string, method: InjectOptions['method'], body?: Json) =>
      t.app.inject({
        method,
        url: method === 'GET' ? '/api/go/preferences' : `/api/go/preferences/${slug}`,
        headers: bearer(token),
        ...(body !== undefined && { payload: body }),
      })
    expectReason(await call(personal, 'PUT', { link_id: shared.id }), 404, 'NOT_FOUND')
    expect((await call(owner.token, 'PUT', { link_id: shared.id })).statusCode).toBe(200)
    const slugs = async (token: string) =>
      (await call(token, 'GET')).json().items.map((p: { slug: string }) => p.slug)
    expect(await slugs(all)).toContain(slug)
    expect(await slugs(personal)).not.toContain(slug)
    expectReason(await call(personal, 'DELETE'), 404, 'NOT_FOUND')
    expect(await slugs(owner.token)).toContain(slug)
    expect((await call(all, 'DELETE')).statusCode).toBe(204)
  })
})
