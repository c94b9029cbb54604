/**
 * Every operation of the OpenAPI document against the permission table, generated from
 * the document and the table (nothing hand-listed). For each operation that needs a permission, a
 * token holding exactly that permission gets past the scope check (it may still fail for another
 * reason: a made-up id, an empty body), and a token holding every other permission gets 403
 * INSUFFICIENT_SCOPE naming it. Session-only operations answer 403 SESSION_REQUIRED to every token,
 * legacy (full-access) ones included.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../test/helpers/app.js'
import {
  bearer,
  createSignedInUser,
  type SignedIn,
  type TestUser,
} from '../../../test/helpers/factories.js'
import { newId } from '../../lib/ids.js'
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../../identity/token-format.js'
import {
  OPERATION_ACCESS,
  TOKEN_PERMISSIONS,
  type OperationAccess,
  type TokenPermission,
} from '../../identity/permissions.js'
import { createApiToken } from './service.js'

const t = useTestApp({ env: { RATE_LIMIT_GENERAL: '0' } })

interface Operation {
  method: string
  path: string
  operationId: string
  security: Array<Record<string, string[]>>
}

function operationsOf(document: {
  paths: Record<
    string,
    Record<string, { operationId?: string; security?: Array<Record<string, string[]>> }>
  >
}) {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId!,
        security: operation.security ?? [],
      })
    }
  }
  return operations
}

let admin: TestUser & SignedIn
const tokens = new Map<string, string>()

async function mint(name: string, permissions: TokenPermission[]): Promise<string> {
  const caller = {
    user: admin.user,
    credential: 'session' as const,
    sessionId: null,
    tokenId: null,
    grant: null,
    mfa: { hasSecondFactor: false, status: null },
    twoFactorPolicy: 'off' as const,
    vouchedByProvider: false,
    reauthenticatedMs: null,
  }
  const created = await createApiToken(
    t.deps,
    caller,
    { name, permissions, organization_boundary: 'all' },
    { ip: '127.0.0.1', userAgent: null },
  )
  return created.token
}

/** A legacy token: no permissions, no boundary. */
async function mintLegacy(): Promise<string> {
  const token = generateApiToken()
  await t.deps.db
    .insertInto('api_tokens')
    .values({
      id: newId(),
      user_id: admin.user.id,
      name: 'legacy',
      prefix: apiTokenPrefix(token),
      token_hash: hashApiToken(token),
      created_at: t.clock.now().toISOString(),
    })
    .execute()
  return token
}

/** Every permission but `needed` (and, for a read, the write of its area, which implies it). */
function allBut(needed: TokenPermission): TokenPermission[] {
  const area = needed.slice(0, needed.indexOf(':'))
  return TOKEN_PERMISSIONS.filter(
    (p) => p !== needed && !(needed.endsWith(':read') && p === `${area}:write`),
  )
}

function request(operation: Operation, token: string) {
  const url = operation.path.replace(/\{[^}]+\}/g, 'no-such-id')
  const unsafe = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(operation.method)
  return t.app.inject({
    method: operation.method as 'GET',
    url,
    headers: bearer(token),
    ...(unsafe && { payload: {} }),
  })
}

const document = async () => operationsOf(t.app.swagger() as never)

beforeAll(async () => {
  admin = await createSignedInUser(t, { isAdmin: true })
  for (const permission of TOKEN_PERMISSIONS) {
    tokens.set(`only ${permission}`, await mint(`only ${permission}`, [permission]))
    tokens.set(`without ${permission}`, await mint(`without ${permission}`, allBut(permission)))
  }
  tokens.set('everything', await mint('everything', [...TOKEN_PERMISSIONS]))
  tokens.set('legacy', await mintLegacy())
})

describe('the permission table', () => {
  it('has an entry for every operation of the OpenAPI document, and no entry for an operation that does not exist', async () => {
    const operations = await document()
    const missing = operations
      .filter((operation) => OPERATION_ACCESS[operation.operationId] === undefined)
      .map((o) => `${o.method} ${o.path} (${o.operationId})`)
    expect(missing, 'operations without an entry in identity/permissions.ts').toEqual([])
    const ids = new Set(operations.map((operation) => operation.operationId))
    expect(Object.keys(OPERATION_ACCESS).filter((id) => !ids.has(id))).toEqual([])
  })

  it('is what the document states: the bearer scope is the permission; none on a session-only operation; no security on a public one', async () => {
    for (const operation of await document()) {
      const access = OPERATION_ACCESS[operation.operationId]
      if (access === 'public') continue
      const bearerScopes = operation.security.find(
        (requirement) => 'bearerAuth' in requirement,
      )?.bearerAuth
      expect(bearerScopes, operation.operationId).toEqual(access === 'session' ? [] : [access])
    }
  })

  it("agrees with each route's own declaration: public is public, a session route is session-only, an administrators' route needs an admin.* permission", () => {
    const byRoute = new Map<string, OperationAccess>()
    for (const route of routesWithOperationIds())
      byRoute.set(`${route.method} ${route.url}`, OPERATION_ACCESS[route.operationId]!)
    let compared = 0
    for (const entry of t.app.routeTable.entries) {
      const access = byRoute.get(`${entry.method} ${entry.url}`)
      if (access === undefined) continue
      compared++
      const name = `${entry.method} ${entry.url}`
      if (entry.auth === 'public') expect(access, name).toBe('public')
      if (entry.auth === 'session') expect(access, name).toBe('session')
      // An administrators' route takes an admin.* permission, or no token at all (the
      // credential-equivalent ones: a SCIM credential, an identity provider).
      if (entry.auth === 'admin')
        expect(access.startsWith('admin.') || access === 'session', name).toBe(true)
      if (access.startsWith('admin.')) expect(entry.auth, name).toBe('admin')
    }
    expect(compared).toBeGreaterThan(100)
  })
})

describe('the machine-readable declaration of each operation', () => {
  it('is x-permission (the permission), x-session-only, or public, as the table says', () => {
    const document = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, Record<string, unknown>>>
    }
    let declared = 0
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        const access = OPERATION_ACCESS[operation.operationId as string]
        const name = String(operation.operationId)
        if (access === 'public') {
          expect(operation['x-permission'], name).toBeUndefined()
          expect(operation['x-session-only'], name).toBeUndefined()
          continue
        }
        if (access === 'session') {
          expect(operation['x-session-only'], name).toBe(true)
          expect(operation['x-permission'], name).toBeUndefined()
        } else {
          expect(operation['x-permission'], name).toBe(access)
          expect(operation['x-session-only'], name).toBeUndefined()
        }
        declared++
      }
    }
    expect(declared).toBe(
      Object.values(OPERATION_ACCESS).filter((access) => access !== 'public').length,
    )
  })
})

/** Each documented operation with the route URL it is served on (Fastify's `:param` form). */
function routesWithOperationIds(): Array<{ method: string; url: string; operationId: string }> {
  const document = t.app.swagger() as unknown as {
    paths: Record<string, Record<string, { operationId: string }>>
  }
  const out: Array<{ method: string; url: string; operationId: string }> = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      out.push({
        method: method.toUpperCase(),
        url: path.replace(/\{([^}]+)\}/g, ':$1'),
        operationId: operation.operationId,
      })
    }
  }
  return out
}

describe('every operation that needs a permission', () => {
  it('passes the scope check with exactly that permission, and answers 403 INSUFFICIENT_SCOPE naming it without', async () => {
    let checked = 0
    for (const operation of await document()) {
      const access = OPERATION_ACCESS[operation.operationId]
      if (access === undefined || access === 'public' || access === 'session') continue
      const name = `${operation.method} ${operation.path} (${access})`
      const allowed = await request(operation, tokens.get(`only ${access}`)!)
      expect(
        ['INSUFFICIENT_SCOPE', 'SESSION_REQUIRED', 'UNAUTHORIZED'],
        `${name}: ${allowed.body}`,
      ).not.toContain(allowed.json().reason)
      expect(allowed.json().reason, name).not.toBe('INTERNAL')

      const refused = await request(operation, tokens.get(`without ${access}`)!)
      expect(refused.statusCode, name).toBe(403)
      expect(refused.json(), name).toMatchObject({
        reason: 'INSUFFICIENT_SCOPE',
        details: { required: access },
      })
      expect(refused.json().message, name).toContain(access)
      checked++
    }
    expect(checked).toBe(
      Object.values(OPERATION_ACCESS).filter(
        (access) => access !== 'public' && access !== 'session',
      ).length,
    )
  })
})

describe('every session-only operation', () => {
  it('answers 403 SESSION_REQUIRED to a token with every permission, and to a legacy full-access token', async () => {
    let checked = 0
    for (const operation of await document()) {
      if (OPERATION_ACCESS[operation.operationId] !== 'session') continue
      for (const kind of ['everything', 'legacy']) {
        const response = await request(operation, tokens.get(kind)!)
        expect(response.statusCode, `${operation.method} ${operation.path} with ${kind}`).toBe(403)
        expect(response.json().reason, `${operation.method} ${operation.path} with ${kind}`).toBe(
          'SESSION_REQUIRED',
        )
      }
      checked++
    }
    expect(checked).toBe(
      Object.values(OPERATION_ACCESS).filter((access) => access === 'session').length,
    )
  })
})
