/**
 * Nothing a client can send makes a 500, on either engine — in particular no text PostgreSQL cannot
 * hold (NUL) and no forged cursor reaches the database. Routes and collections are derived from
 * what the application serves, so later ones are covered too.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.js'
import { expectReason } from '../helpers/expect.js'
import { bearer, createSignedInUser, type SignedIn, type TestUser } from '../helpers/factories.js'
import { createOrganization } from '../helpers/organizations.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
const ids: Record<string, string> = {}

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  ids.organization = (await createOrganization(t, admin.token)).id
  ids.team = (
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/teams',
      headers: bearer(admin.token),
      payload: { name: 'Malformed' },
    })
  ).json().id
})

const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url')

/** A path with real ids where a collection belongs to something (else its 404 would come first). */
function realPath(path: string): string {
  return path
    .replace(/^\/api\/organizations\/\{id\}/, `/api/organizations/${ids.organization}`)
    .replace(/^\/api\/admin\/teams\/\{id\}/, `/api/admin/teams/${ids.team}`)
    .replace(/^\/api\/admin\/users\/\{id\}/, `/api/admin/users/${admin.user.id}`)
}

describe('path parameters holding control characters', () => {
  it('are not found (404) on every route that takes one', async () => {
    const routes = t.app.routeTable.entries.filter(
      (r) => r.url.startsWith('/api/') && r.url.includes(':') && r.method !== 'HEAD',
    )
    expect(routes.length).toBeGreaterThan(20)
    for (const route of routes) {
      const url = route.url.replace(/:\w+/g, 'a%00b')
      const response = await t.app.inject({
        method: route.method as 'GET',
        url,
        headers: bearer(admin.token),
        ...(route.method !== 'GET' && { payload: {} }),
      })
      expect(response.statusCode, `${route.method} ${url}`).toBe(404)
    }
  })
})

describe('forged cursors', () => {
  it('are a 400 on cursor for every collection, whatever they hold', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>
    }>()
    const collections = Object.entries(doc.paths)
      .filter(([, operations]) =>
        operations.get?.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'),
      )
      .map(([path]) => realPath(path))
    const timeOrdered = [
      '/api/tokens',
      '/api/users/me/sessions',
      '/api/admin/users',
      '/api/admin/audit-log',
      `/api/organizations/${ids.organization}/invitations`,
      '/api/links',
      '/api/links/deleted',
      '/api/invitations',
      '/api/users/me/security-events',
    ]
    expect(collections).toEqual(expect.arrayContaining(timeOrdered))
    // Never issued by any collection: a 400 everywhere.
    const unissuable = [
      cursorOf(['nul\u0000', 'x']),
      cursorOf(['x', 'nul\u0000']),
      cursorOf(['\ud800', 'x']),
      cursorOf([1, 2]),
      'not-base64-json',
    ]
    // Text, but not a time: a 400 where the order is by time, a harmless name elsewhere.
    const notATime = [
      cursorOf(['not a time', 'x']),
      cursorOf(['0000-01-01T00:00:00.000Z', 'x']),
      cursorOf(['2026-02-30T00:00:00.000Z', 'x']),
    ]
    for (const path of collections) {
      for (const cursor of [...unissuable, ...notATime]) {
        const response = await t.app.inject({
          method: 'GET',
          url: `${path}?cursor=${cursor}`,
          headers: bearer(admin.token),
        })
        const label = `${path} ${Buffer.from(cursor, 'base64url').toString()} → ${response.statusCode}`
        // The AI model list answers 503 first while AI is not configured.
        if (response.statusCode === 503) continue
        if (unissuable.includes(cursor) || timeOrdered.includes(path)) {
          expect(response.statusCode, label).toBe(400)
          expect(response.json().details).toEqual([
            {
              field: 'cursor',
              message: 'is not a cursor returned by this endpoint',
              code: 'invalid',
            },
          ])
        } else {
          expect(response.statusCode, label).toBe(200)
        }
      }
    }
  })
})

describe('query and body text holding NUL', () => {
  it('is a 400 where it would otherwise reach the database', async () => {
    for (const url of [
      '/api/admin/users?q=a%00b',
      '/api/admin/audit-log?action=a%00b',
      '/api/admin/audit-log?actor_id=a%00b',
    ]) {
      expectReason(
        await t.app.inject({ method: 'GET', url, headers: bearer(admin.token) }),
        400,
        'VALIDATION_FAILED',
      )
    }
    const body = await t.app.inject({
      method: 'POST',
      url: `/api/admin/teams/${ids.team}/members`,
      headers: bearer(admin.token),
      payload: { user_id: 'a\u0000b' },
    })
    expectReason(body, 400, 'VALIDATION_FAILED')
    // Before 1970 — year 0 included, which PostgreSQL cannot represent — means from the beginning.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/admin/audit-log?since=0000-01-01T00:00:00Z',
          headers: bearer(admin.token),
        })
      ).statusCode,
    ).toBe(200)
  })
})
