/**
 * Who may call what, for every route the application really serves (derived from the route table,
 * so a route added later is covered — or, for organizations, makes this test fail until its row in
 * the role table below is written):
 *
 * - every route that is not public: no credentials → 401;
 * - every /api/admin/* and /api/oidc-providers* route (docs/API.md#who-may-do-what): a signed-in
 *   non-administrator → 403 FORBIDDEN, an administrator → neither 401 nor 403;
 * - every /api/organizations/{id}… route: an outsider → 404, a member below the route's role →
 *   403 FORBIDDEN, a member at or above it → success.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/lib/ids.js'
import { useTestApp } from '../helpers/app.js'
import {
  bearer,
  createSignedInUser,
  createUser,
  uniqueEmail,
  type SignedIn,
  type TestUser,
  DEFAULT_PASSWORD,
} from '../helpers/factories.js'
import {
  addOrgMember,
  createOrgWithRoles,
  type OrgRole,
  type OrgWithRoles,
} from '../helpers/organizations.js'
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-server.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })
let admin: TestUser & SignedIn
let regular: TestUser & SignedIn
let smtp: SmtpStandIn

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  regular = await createSignedInUser(t)
  smtp = await startSmtpStandIn()
  const configured = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/settings/smtp',
    headers: bearer(admin.token),
    payload: {
      current_password: DEFAULT_PASSWORD,
      enabled: true,
      host: smtp.host,
      port: smtp.port,
      secure: false,
      from_address: 'switchboard@example.com',
    },
  })
  expect(configured.statusCode).toBe(200)
})
afterAll(async () => {
  await smtp?.close()
})

type Method = InjectOptions['method'] & string
interface Route {
  method: Method
  url: string
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function servedRoutes(filter: (url: string, auth: string) => boolean): Route[] {
  const routes = t.app.routeTable.entries.filter(
    (r) => r.method !== 'HEAD' && filter(r.url, r.auth),
  )
  return routes.map((r) => ({ method: r.method, url: r.url }))
}

const nameOf = (route: Route) => `${route.method} ${route.url}`

function send(
  route: Route,
  path: string,
  token: string | null,
  payload?: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: route.method,
    url: path,
    ...(token !== null && { headers: bearer(token) }),
    ...(BODY_METHODS.has(route.method) && { payload: payload ?? {} }),
  })
}

describe('every route that is not public', () => {
  it('answers 401 UNAUTHORIZED without credentials', async () => {
    // SCIM routes (auth 'scim') take only a SCIM credential and answer SCIM errors:
    // src/modules/scim/credentials.routes.test.ts.
    const routes = servedRoutes(
      (url, auth) => auth !== 'public' && auth !== 'scim' && !url.startsWith('/api/docs'),
    )
    expect(routes.length).toBeGreaterThan(40)
    for (const route of routes) {
      const response = await send(route, route.url.replace(/:\w+/g, 'x'), null)
      expect(response.statusCode, nameOf(route)).toBe(401)
      expect(response.json().reason, nameOf(route)).toBe('UNAUTHORIZED')
    }
  })
})

describe('administration routes', () => {
  const adminRoutes = () =>
    servedRoutes((url) => url.startsWith('/api/admin/') || url.startsWith('/api/oidc-providers'))

  /** A real resource for each path parameter, made fresh for each call (DELETE really deletes). */
  async function pathFor(url: string): Promise<string> {
    let teamId: string | null = null
    if (url.startsWith('/api/admin/teams/:id')) {
      const team = await t.app.inject({
        method: 'POST',
        url: '/api/admin/teams',
        headers: bearer(admin.token),
        payload: { name: `Matrix ${newId()}` },
      })
      teamId = team.json().id
    }
    const user = (await createUser(t)).user.id
    if (teamId !== null && url.includes(':user_id')) {
      await t.app.inject({
        method: 'POST',
        url: `/api/admin/teams/${teamId}/members`,
        headers: bearer(admin.token),
        payload: { user_id: user },
      })
    }
    return url
      .replace(':id', teamId ?? (url.startsWith('/api/admin/users/') ? user : newId()))
      .replace(':user_id', user)
      .replace(/:\w+/g, 'matrix.key')
  }

  it('are all derived from the served routes, including the known ones', () => {
    const names = adminRoutes().map(nameOf)
    for (const known of [
      'GET /api/admin/users',
      'POST /api/admin/users',
      'GET /api/admin/users/:id',
      'PUT /api/admin/users/:id',
      'DELETE /api/admin/users/:id',
      'POST /api/admin/users/:id/mfa/reset',
      'GET /api/admin/teams',
      'POST /api/admin/teams',
      'GET /api/admin/teams/:id',
      'PATCH /api/admin/teams/:id',
      'DELETE /api/admin/teams/:id',
      'GET /api/admin/teams/:id/members',
      'POST /api/admin/teams/:id/members',
      'DELETE /api/admin/teams/:id/members/:user_id',
      'GET /api/admin/audit-log',
      'GET /api/admin/settings/smtp',
    ]) {
      expect(names).toContain(known)
    }
  })

  it('answer a signed-in non-administrator 403 FORBIDDEN', async () => {
    for (const route of adminRoutes()) {
      const response = await send(route, await pathFor(route.url), regular.token)
      expect(response.statusCode, nameOf(route)).toBe(403)
      expect(response.json().reason, nameOf(route)).toBe('FORBIDDEN')
    }
  })

  it('let an administrator through (neither 401 nor 403)', async () => {
    for (const route of adminRoutes()) {
      const response = await send(route, await pathFor(route.url), admin.token)
      expect(
        [401, 403],
        `${nameOf(route)} → ${response.statusCode} ${response.body}`,
      ).not.toContain(response.statusCode)
    }
  })
})

describe('organization routes', () => {
  interface Call {
    path: string
    payload?: Record<string, unknown>
  }
  interface Expectation {
    /** The least role that may call the route; lower roles get 403, outsiders 404. */
    minimum: OrgRole
    /** A valid request, with a fresh target where the route changes one. */
    call(org: OrgWithRoles): Promise<Call>
  }

  const freshMember = async (org: OrgWithRoles) => {
    const user = await createSignedInUser(t)
    await addOrgMember(t, org.owner.token, org.id, user, 'member')
    return user.user.id
  }
  const freshInvitation = async (org: OrgWithRoles) => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/organizations/${org.id}/invitations`,
      headers: bearer(org.owner.token),
      payload: { email: uniqueEmail('matrix'), role: 'member' },
    })
    return response.json().id as string
  }

  /** The role table of docs/API.md#who-may-do-what as HTTP: one row per organization route. */
  const TABLE: Record<string, Expectation> = {
    'GET /api/organizations/:id': {
      minimum: 'member',
      call: async (org) => ({ path: `/api/organizations/${org.id}` }),
    },
    'PATCH /api/organizations/:id': {
      minimum: 'admin',
      call: async (org) => ({ path: `/api/organizations/${org.id}`, payload: { name: 'Renamed' } }),
    },
    'DELETE /api/organizations/:id': {
      minimum: 'owner',
      call: async (org) => ({ path: `/api/organizations/${org.id}` }),
    },
    'GET /api/organizations/:id/members': {
      minimum: 'member',
      call: async (org) => ({ path: `/api/organizations/${org.id}/members` }),
    },
    'POST /api/organizations/:id/members': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/members`,
        payload: { email: (await createUser(t)).email, role: 'member' },
      }),
    },
    'PATCH /api/organizations/:id/members/:user_id': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/members/${await freshMember(org)}`,
        payload: { role: 'admin' },
      }),
    },
    'DELETE /api/organizations/:id/members/:user_id': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/members/${await freshMember(org)}`,
      }),
    },
    'POST /api/organizations/:id/invitations': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/invitations`,
        payload: { email: uniqueEmail('invitee'), role: 'member' },
      }),
    },
    'GET /api/organizations/:id/invitations': {
      minimum: 'admin',
      call: async (org) => ({ path: `/api/organizations/${org.id}/invitations` }),
    },
    'POST /api/organizations/:id/invitations/:invitation_id/resend': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/invitations/${await freshInvitation(org)}/resend`,
      }),
    },
    'DELETE /api/organizations/:id/invitations/:invitation_id': {
      minimum: 'admin',
      call: async (org) => ({
        path: `/api/organizations/${org.id}/invitations/${await freshInvitation(org)}`,
      }),
    },
  }
  const RANK: Record<OrgRole, number> = { member: 1, admin: 2, owner: 3 }

  const organizationRoutes = () => servedRoutes((url) => url.startsWith('/api/organizations/:id'))

  it('have a row in the role table for every served route, and no row without a route', () => {
    const served = organizationRoutes().map(nameOf).sort()
    expect(served.length).toBeGreaterThanOrEqual(10)
    expect(served).toEqual(Object.keys(TABLE).sort())
  })

  it('answer outsiders 404, members below the role 403, and the role and above with success', async () => {
    for (const route of organizationRoutes()) {
      const expectation = TABLE[nameOf(route)]!
      const org = await createOrgWithRoles(t)
      // Lowest first, so that a destructive call by a higher role comes last.
      for (const caller of ['outsider', 'member', 'admin', 'owner'] as const) {
        const { path, payload } = await expectation.call(org)
        const response = await send(route, path, org[caller].token, payload)
        const label = `${nameOf(route)} as ${caller} → ${response.statusCode} ${response.body}`
        if (caller === 'outsider') {
          expect(response.statusCode, label).toBe(404)
          expect(response.json().reason, label).toBe('NOT_FOUND')
        } else if (RANK[caller] < RANK[expectation.minimum]) {
          expect(response.statusCode, label).toBe(403)
          expect(response.json().reason, label).toBe('FORBIDDEN')
        } else {
          expect(response.statusCode, label).toBeGreaterThanOrEqual(200)
          expect(response.statusCode, label).toBeLessThan(300)
        }
      }
    }
  })
})
